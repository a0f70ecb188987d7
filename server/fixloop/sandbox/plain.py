"""The unsandboxed backend (`sandbox.backend = "none"`): limits and the launcher layer, no isolation.

Only for explicit opt-in: the command can read the user's files, reach the network and signal other
processes. Every result says so in its guarantees.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from .api import Policy, RunResult, SandboxLimits
from .launcher import Launch, clean_env, kill_group, prlimit_argv, supervise

GUARANTEES = (
    "UNSANDBOXED: the command can read your files, use the network and signal your processes",
    "environment allow-listed (no keys, tokens or secrets); rlimits; wall-clock kill of its process group; "
    "capped output; per-run disk quota",
)


class PlainSandbox:
    """No isolation at all. Only for explicit opt-in; every result says so."""

    name = "none"
    guarantees = GUARANTEES

    def __init__(self) -> None:
        self._live: set[int] = set()

    def run(self, argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy) -> RunResult:
        tmp = Path(tempfile.mkdtemp(prefix="fixloop-run-"))
        try:
            env = clean_env(policy.env)
            env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
            env.update(HOME=str(tmp), TMPDIR=str(tmp))
            launch = Launch(prlimit_argv(limits) + list(argv), workspace, env, watch=(workspace, tmp))
            return supervise(launch, limits, self.name, self.guarantees, self._live)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def kill_all(self) -> None:
        for pid in list(self._live):
            kill_group(pid)

    def probe(self) -> str:
        return "" if shutil.which("prlimit") else "prlimit not found (install util-linux)"

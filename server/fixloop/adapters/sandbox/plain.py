"""The unsandboxed backend (`sandbox.backend = "none"`): limits and the launcher layer, no isolation.

Only for explicit opt-in: the command can read the user's files, reach the network and signal other
processes. Every result says so in its guarantees.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from fixloop.adapters.sandbox.api import REPORT_FD_ENV, Policy, RunResult, RunTree, SandboxLimits
from fixloop.adapters.sandbox.fresh import host_copy, remove
from fixloop.adapters.sandbox.envpolicy import clean_env
from fixloop.adapters.sandbox.launcher import Launch, supervise
from fixloop.adapters.sandbox.reaper import kill_group
from fixloop.adapters.sandbox.rlimits import prlimit_argv
from fixloop.adapters.sandbox.streams import close_fds, report_pipe

GUARANTEES = (
    "UNSANDBOXED: the command can read your files, use the network and signal your processes",
    "environment allow-listed (no keys, tokens or secrets); rlimits; wall-clock kill of its process group; "
    "capped output; a fresh private copy per run; disk quota by a 0.1 s watchdog and RLIMIT_FSIZE",
)


class PlainSandbox:
    """No isolation at all. Only for explicit opt-in; every result says so."""

    name = "none"
    guarantees = GUARANTEES
    writes_as_you = True

    def __init__(self) -> None:
        self._live: set[int] = set()

    def run(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
            fds: Sequence[int] = ()) -> RunResult:
        run_dir = None
        try:
            run_dir = Path(tempfile.mkdtemp(prefix="fixloop-run-"))  # 0700, brand new
            workspace = host_copy(tree, run_dir)
            tmp = run_dir / "tmp"
            tmp.mkdir(mode=0o700)
            read_end, write_end = report_pipe()
        except BaseException:
            close_fds(fds)
            remove(run_dir)
            raise
        try:
            env = clean_env(policy.env)
            env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
            env.update(HOME=str(tmp), TMPDIR=str(tmp), **{REPORT_FD_ENV: str(write_end)})
            launch = Launch(prlimit_argv(limits) + list(argv), workspace, env, watch=(workspace, tmp),
                            pass_fds=(write_end, *fds), report_fd=read_end, child_fds=(write_end, *fds))
            return supervise(launch, limits, self.name, self.guarantees, self._live)
        finally:
            remove(run_dir)

    def kill_all(self) -> None:
        for pid in list(self._live):
            kill_group(pid)

    def probe(self) -> str:
        return "" if shutil.which("prlimit") else "prlimit not found (install util-linux)"

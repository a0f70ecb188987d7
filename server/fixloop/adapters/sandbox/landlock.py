"""The landlock backend: for hosts where bubblewrap cannot start (e.g. AppArmor-restricted user namespaces).

No namespaces: a supervisor (landlock_exec.py) becomes the subreaper of the run, and the command runs
under Landlock file rules (system dirs, the interpreter, the pristine tree and fixloop's runtime files
read-only; the run's own fresh copy and a per-run temp dir writable; never /proc or the home), Landlock
TCP and signal scopes, and a seccomp filter that refuses sockets (except socketpair) and kernel attack
surface. The fresh copy is a brand-new private host folder per run, removed afterwards without
following links. Costs: tests that open sockets fail, /dev/shm is the host's (multiprocessing needs
it), and the disk quota is a watchdog plus RLIMIT_FSIZE, not a size-limited filesystem (that needs
mounts): a fast writer can overshoot it until the next check, 0.1 s later.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from fixloop.adapters.sandbox import seccomp_filter
from fixloop.adapters.sandbox.api import REPORT_FD_ENV, Policy, RunResult, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.fresh import host_copy, remove
from fixloop.adapters.sandbox.envpolicy import clean_env
from fixloop.adapters.sandbox.launcher import Launch, supervise
from fixloop.adapters.sandbox.rlimits import prlimit_argv
from fixloop.adapters.sandbox.streams import close_fds, report_pipe

SUPERVISOR = Path(__file__).with_name("landlock_exec.py")
SYSTEM_RO = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt"]
ETC_RO = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "passwd", "group",
          "nsswitch.conf", "hosts", "host.conf", "gai.conf", "protocols", "services", "mime.types", "ssl",
          "ca-certificates", "ca-certificates.conf", "os-release", "alternatives", "debian_version"]
DEVICES_RW = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/shm"]
GUARANTEES = (
    "Landlock: reads only system dirs, a few /etc files, the interpreter and the pristine copy; writes only "
    "the run's own fresh copy and a per-run temp dir (private folders, removed after the run); no /proc, no home",
    "no sockets (seccomp), no TCP (Landlock), no signals or abstract sockets outside the run (Landlock scopes)",
    "environment allow-listed; no new privileges; capability bounding set emptied",
    "subreaper supervisor: every descendant killed when the run ends",
    "rlimits: cpu, address space, processes, file size, open files, no core dumps",
    "wall-clock kill of the whole tree; capped output; disk quota by a 0.1 s watchdog and RLIMIT_FSIZE "
    "(no size-limited filesystem without mounts: a fast writer can overshoot until the next check)",
)
ROOT_CAVEAT = "as root the process limit is not enforced (the kernel exempts uid 0)"


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, or -1 when Landlock is off or not Linux."""
    try:
        from fixloop.adapters.sandbox.landlock_exec import abi

        return int(abi())
    except (OSError, AttributeError):
        return -1


class LandlockSandbox:
    name = "landlock"
    writes_as_you = True  # same user: an approved install can write your virtualenv (`Policy.writable`)

    def __init__(self) -> None:
        self._live: set[int] = set()
        self.abi = landlock_abi()

    @property
    def guarantees(self) -> tuple[str, ...]:
        caveats = ((ROOT_CAVEAT,) if os.geteuid() == 0 else ()) + (
            (f"Landlock ABI {self.abi} < 6: signals and abstract sockets are not scoped",) if self.abi < 6 else ())
        return GUARANTEES + caveats

    def launch(self, argv: Sequence[str], tree: RunTree, workspace: Path, tmp: Path, limits: SandboxLimits,
               policy: Policy, fds: Sequence[int] = ()) -> Launch:
        read_only = SYSTEM_RO + [f"/etc/{n}" for n in ETC_RO] + [str(Path(p)) for p in policy.read_only]
        read_only += [str(tree.source.resolve())] + ([str(tree.runtime.resolve())] if tree.runtime else [])
        read_only.append(sys.executable)  # the supervisor's own interpreter, for its exec only
        writable = [str(workspace), str(tmp)] + DEVICES_RW + [str(Path(p)) for p in policy.writable]
        config = {"read_only": [p for p in read_only if os.path.exists(p)], "writable": writable,
                  "seccomp": seccomp_filter.build_bpf(True).hex()}
        read_end, write_end = report_pipe()
        env = clean_env(policy.env)
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.update(HOME=str(tmp), TMPDIR=str(tmp), **{REPORT_FD_ENV: str(write_end)})
        command = [sys.executable, "-I", "-S", str(SUPERVISOR), json.dumps(config), "--", *prlimit_argv(limits), *argv]
        return Launch(command, workspace, env, watch=(workspace, tmp), term_grace=5.0,
                      pass_fds=(write_end, *fds), report_fd=read_end, child_fds=(write_end, *fds))

    def run(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
            fds: Sequence[int] = ()) -> RunResult:
        run_dir = None
        try:
            if policy.network:
                raise SandboxUnavailable("the landlock backend never gives network access; set sandbox.backend = \"none\"")
            run_dir = Path(tempfile.mkdtemp(prefix="fixloop-run-"))  # 0700, brand new: nothing planted in it
            workspace = host_copy(tree, run_dir)
            tmp = run_dir / "tmp"
            tmp.mkdir(mode=0o700)
            launch = self.launch(argv, tree, workspace, tmp, limits, policy, fds)
        except BaseException:
            close_fds(fds)
            remove(run_dir)
            raise
        try:
            return supervise(launch, limits, self.name, self.guarantees, self._live)
        finally:
            remove(run_dir)

    def kill_all(self) -> None:
        for pid in list(self._live):
            try:
                os.kill(pid, signal.SIGTERM)  # the supervisor reaps its tree, then exits
            except ProcessLookupError:
                pass

    def probe(self) -> str:
        if self.abi < 1:
            return "Landlock is not enabled in this kernel"
        if why := seccomp_filter.available():
            return why
        if shutil.which("prlimit") is None:
            return "prlimit not found (install util-linux)"
        with tempfile.TemporaryDirectory(prefix="fixloop-probe-") as source:
            result = self.run(["/bin/true"], RunTree(Path(source)), SandboxLimits(wall_seconds=5), Policy())
        if result.returncode != 0:
            return f"landlock supervisor failed (exit {result.returncode}): {result.output.strip()[-300:]}"
        return ""

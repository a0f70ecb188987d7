"""The bubblewrap backend: namespaces, a read-only system view, only the scratch copy writable.

Two recipes (see docs/sandbox.md):
- as an ordinary user: a user namespace with further user namespaces disabled, all capabilities dropped;
- as root: *no* user namespace (root keeps every capability inside one and could remount read-only
  binds writable), only SETUID/SETGID/SETPCAP kept, then `setpriv` to a dedicated unprivileged uid
  inside, which owns the scratch copy. rlimits are applied after that, so the process limit binds.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from . import seccomp_filter
from .api import Policy, RunResult, SandboxLimits, SandboxUnavailable
from .launcher import Launch, clean_env, kill_group, prlimit_argv, supervise

SANDBOX_HOME = "/home/sandbox"
SYSTEM_RO = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")
UID_BASE = 200_000  # dedicated uids: the process limit counts per uid, so share it with nobody
_uid_counter = itertools.count()

GUARANTEES = (
    "own pid, network, ipc and uts namespaces: no host processes, no network except its own loopback",
    "read-only: /usr, /etc (shadow masked), the interpreter; writable: the scratch copy, sized /tmp and home",
    "environment cleared; only allow-listed variables, never keys, tokens or secrets",
    "capabilities dropped; no new privileges; nested user namespaces disabled",
    "rlimits: cpu, address space, processes, file size, open files, no core dumps",
    "wall-clock kill of the whole tree; capped output; per-run disk quota",
)
ROOT_GUARANTEES = GUARANTEES[:3] + (
    "runs as a dedicated unprivileged uid (setpriv), no capabilities, no new privileges",
) + GUARANTEES[4:]


def is_root() -> bool:
    return os.geteuid() == 0


def _too_wide(path: Path, workspace: Path) -> bool:
    """A read-only bind that would show the host's root, a home, /tmp, /run or the parents of the copy."""
    wide = {Path("/"), Path("/home"), Path("/root"), Path("/tmp"), Path("/run"), Path("/var"), Path("/var/run"),
            Path.home()}
    return path in wide or path in workspace.parents


def _covered(path: Path, mounts: Sequence[Path]) -> bool:
    return any(path == m or m in path.parents for m in mounts)


def _parents(path: Path, made: set[Path]) -> list[str]:
    """`--perms 0755 --dir` for each missing ancestor: bwrap makes them 0700 as root, unreachable after setpriv."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made:
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def build_argv(argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy, *,
               root: bool, uid: int, seccomp_fd: int | None) -> list[str]:
    bwrap = shutil.which("bwrap") or "bwrap"
    args = [bwrap]
    if root:
        args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                 "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--cap-add", "CAP_SETPCAP"]
    else:
        args += ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    args += ["--die-with-parent", "--new-session", "--clearenv", "--hostname", "sandbox"]
    for d in SYSTEM_RO:
        args += ["--ro-bind", d, d]
    for link in SYSTEM_LINKS:
        p = Path(link)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), link]
        elif p.is_dir():
            args += ["--ro-bind", link, link]
    for masked in MASKED:
        if os.path.lexists(masked):
            args += ["--ro-bind", "/dev/null", masked]
    size = str(limits.tmp_mb * 1024 * 1024)
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
             "--perms", "0755", "--dir", str(Path(SANDBOX_HOME).parent),
             "--perms", "0777", "--size", size, "--tmpfs", SANDBOX_HOME]
    made = {Path("/tmp"), Path("/usr"), Path("/etc"), Path(SANDBOX_HOME).parent}
    mounts = [Path(d) for d in SYSTEM_RO] + [workspace]
    for ro in sorted({Path(p) for p in policy.read_only}):
        if not ro.is_absolute() or _too_wide(ro, workspace) or _covered(ro, mounts) or not ro.exists():
            continue
        args += _parents(ro, made) + ["--ro-bind", str(ro), str(ro)]
        mounts.append(ro)
        made.add(ro)
    args += _parents(workspace, made) + ["--bind", str(workspace), str(workspace), "--chdir", str(workspace)]
    env = clean_env(policy.env)
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=SANDBOX_HOME, TMPDIR="/tmp", USER="sandbox", LOGNAME="sandbox")
    for name, value in sorted(env.items()):
        args += ["--setenv", name, value]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args.append("--")
    if root:
        setpriv = shutil.which("setpriv") or "setpriv"
        args += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--bounding-set=-all",
                 "--inh-caps=-all", "--no-new-privs", "--"]
    return args + prlimit_argv(limits) + list(argv)


def chown_tree(root: Path, uid: int) -> None:
    """Give the scratch copy to the sandbox uid (root recipe); never follows symlinks."""
    stack = [str(root)]
    os.lchown(root, uid, uid)
    # bwrap enters it before setpriv, as root without capabilities: it needs the search bit for others.
    os.chmod(root, os.stat(root).st_mode & 0o7777 | 0o111)
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                st = entry.stat(follow_symlinks=False)
                if st.st_nlink > 1 and not entry.is_dir(follow_symlinks=False):
                    continue  # a hard link may share its inode with a file outside the copy: leave it
                if st.st_uid != uid:
                    os.lchown(entry.path, uid, uid)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)


class BwrapSandbox:
    name = "bwrap"

    def __init__(self, root: bool | None = None, seccomp: bool = True) -> None:
        self.root = is_root() if root is None else root
        self.uid = UID_BASE + (os.getpid() % 50_000) * 16 + next(_uid_counter) % 16
        self.seccomp = seccomp and not seccomp_filter.available()
        self._live: set[int] = set()

    @property
    def guarantees(self) -> tuple[str, ...]:
        base = ROOT_GUARANTEES if self.root else GUARANTEES
        return base + (("seccomp: io_uring, bpf, ptrace, mount, keyctl and similar calls refused",)
                       if self.seccomp else ())

    def launch(self, argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy) -> Launch:
        """The exact command for `argv` (also what the probe runs on /bin/true)."""
        workspace = workspace.resolve()
        fd = seccomp_filter.bpf_fd() if self.seccomp else None
        command = build_argv(argv, workspace, limits, policy, root=self.root, uid=self.uid, seccomp_fd=fd)
        return Launch(command, workspace, {}, watch=(workspace,), pass_fds=(fd,) if fd is not None else ())

    def run(self, argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy) -> RunResult:
        if policy.network:
            raise SandboxUnavailable("the bwrap backend never gives network access; set sandbox.backend = \"none\"")
        if self.root:
            chown_tree(workspace, self.uid)
        launch = self.launch(argv, workspace, limits, policy)
        try:
            return supervise(launch, limits, self.name, self.guarantees, self._live)
        finally:
            for fd in launch.pass_fds:
                os.close(fd)

    def kill_all(self) -> None:
        for pid in list(self._live):
            kill_group(pid)

    def probe(self) -> str:
        """'' if the exact recipe starts /bin/true here, else the reason it does not."""
        for tool in ("bwrap", "prlimit") + (("setpriv",) if self.root else ()):
            if shutil.which(tool) is None:
                return f"{tool} not found (install bubblewrap and util-linux)"
        with tempfile.TemporaryDirectory(prefix="fixloop-probe-") as tmp:
            ws = Path(tmp)
            if self.root:
                chown_tree(ws, self.uid)
            launch = self.launch(["/bin/true"], ws, SandboxLimits(), Policy())
            try:
                done = subprocess.run(list(launch.argv), cwd=ws, env={}, stdin=subprocess.DEVNULL,
                                      capture_output=True, timeout=5, pass_fds=tuple(launch.pass_fds))
            except (OSError, subprocess.SubprocessError) as e:
                return f"bwrap did not start: {e}"
            finally:
                for fd in launch.pass_fds:
                    os.close(fd)
        if done.returncode != 0:
            return f"bwrap failed (exit {done.returncode}): {done.stderr.decode('utf-8', 'replace').strip()[-300:]}"
        return ""

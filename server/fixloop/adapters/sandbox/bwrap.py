"""The bubblewrap backend: namespaces, a read-only system view, only the run's own fresh copy writable.

Each run mounts a tmpfs of `disk_quota_mb` as its workspace; a prelude of system binaries (`cp`,
`chown`) copies the read-only pristine tree and the staged candidate files into it before the command
starts, so writes past the quota get ENOSPC where they happen and the host never touches the copy.

Two recipes (see docs/sandbox.md):
- as an ordinary user: a user namespace with further user namespaces disabled, all capabilities dropped;
- as root: *no* user namespace (root keeps every capability inside one and could remount read-only
  binds writable). The prelude keeps CHOWN and DAC_* to copy and hand the tmpfs to a dedicated
  unprivileged uid; `setpriv` then drops every capability and switches to that uid before the command.
  rlimits are applied after that, so the process limit binds.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from fixloop.adapters.sandbox import seccomp_filter
from fixloop.adapters.sandbox.api import REPORT_FD_ENV, Policy, RunResult, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.fresh import SANDBOX_HOME, prelude_argv, remove, stage_changes, workspace_path
from fixloop.adapters.sandbox.envpolicy import clean_env
from fixloop.adapters.sandbox.launcher import Launch, supervise
from fixloop.adapters.sandbox.reaper import kill_group
from fixloop.adapters.sandbox.rlimits import prlimit_argv
from fixloop.adapters.sandbox.streams import close_fds, report_pipe

SYSTEM_RO = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")
UID_BASE = 200_000  # dedicated uids: the process limit counts per uid, so share it with nobody
_uid_counter = itertools.count()

GUARANTEES = (
    "own pid, network, ipc and uts namespaces: no host processes, no network except its own loopback",
    "read-only: /usr, /etc (shadow masked), the interpreter, the pristine copy; writable: the run's own "
    "fresh copy, sized /tmp and home",
    "environment cleared; only allow-listed variables, never keys, tokens or secrets",
    "capabilities dropped; no new privileges; nested user namespaces disabled",
    "rlimits: cpu, address space, processes, file size, open files, no core dumps",
    "wall-clock kill of the whole tree; capped output; disk quota enforced by a size-limited tmpfs "
    "(bytes; inodes are the kernel's tmpfs default)",
)
ROOT_GUARANTEES = GUARANTEES[:3] + (
    "runs as a dedicated unprivileged uid (setpriv), no capabilities, no new privileges (a prelude of "
    "system binaries copies the tree as root before anything of the project runs)",
) + GUARANTEES[4:]


def is_root() -> bool:
    return os.geteuid() == 0


def _too_wide(path: Path, workspace: Path) -> bool:
    """A read-only bind that would show the host's root, a home, /tmp, /run or the parents of the copy."""
    wide = {Path("/"), Path("/home"), Path("/root"), Path("/tmp"), Path("/run"), Path("/var"), Path("/var/run"),
            Path.home()}
    return path in wide or path == workspace or path in workspace.parents


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


def build_argv(argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy, *,
               root: bool, uid: int, seccomp_fd: int | None, changes: Path | None = None,
               extra_env: dict[str, str] | None = None) -> list[str]:
    bwrap = shutil.which("bwrap") or "bwrap"
    source = tree.source.resolve()
    workspace = workspace_path(tree)
    args = [bwrap]
    if root:
        # CHOWN and DAC_* serve the prelude alone: setpriv drops every capability before the command.
        args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_CHOWN", "CAP_DAC_OVERRIDE",
                    "CAP_DAC_READ_SEARCH", "CAP_FOWNER"):
            args += ["--cap-add", cap]
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
    mounts = [Path(d) for d in SYSTEM_RO]
    inside: list[Path] = []  # policy folders within the copy's path (a project's .venv): bound over the copy
    writable = {Path(p) for p in policy.writable}
    bind = {True: "--bind", False: "--ro-bind"}
    for ro in sorted({Path(p) for p in policy.read_only} | writable):
        if not ro.is_absolute() or _too_wide(ro, workspace) or _covered(ro, mounts) or not ro.exists():
            continue
        if workspace in ro.parents:
            inside.append(ro)
            continue
        args += _parents(ro, made) + [bind[ro in writable], str(ro), str(ro)]
        mounts.append(ro)
        made.add(ro)
    # The pristine tree, fixloop's runtime files and the staged changes: read-only, at their host paths.
    for ro in (source, tree.runtime.resolve() if tree.runtime else None, changes):
        if ro is not None:
            args += _parents(ro, made) + ["--ro-bind", str(ro), str(ro)]
            made.add(ro)
    quota = str(max(1, limits.disk_quota_mb) * 1024 * 1024)
    args += _parents(workspace, made) + ["--perms", "0700", "--size", quota, "--tmpfs", str(workspace),
                                         "--chdir", str(workspace)]
    made.add(workspace)
    for ro in inside:
        args += _parents(ro, made) + [bind[ro in writable], str(ro), str(ro)]
        made.add(ro)
    env = clean_env(policy.env)
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=SANDBOX_HOME, TMPDIR="/tmp", USER="sandbox", LOGNAME="sandbox")
    env.update(extra_env or {})
    for name, value in sorted(env.items()):
        args += ["--setenv", name, value]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args.append("--")
    args += prelude_argv(source, workspace, changes, f"{uid}:{uid}" if root else "")
    if root:
        setpriv = shutil.which("setpriv") or "setpriv"
        args += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--bounding-set=-all",
                 "--inh-caps=-all", "--no-new-privs", "--"]
    return args + prlimit_argv(limits) + list(argv)


class BwrapSandbox:
    name = "bwrap"

    def __init__(self, root: bool | None = None, seccomp: bool = True) -> None:
        self.root = is_root() if root is None else root
        self.uid = UID_BASE + (os.getpid() % 50_000) * 16 + next(_uid_counter) % 16
        self.seccomp = seccomp and not seccomp_filter.available()
        self._live: set[int] = set()

    @property
    def writes_as_you(self) -> bool:
        """As root the command runs as a user of its own, who cannot write your files (an install)."""
        return not self.root

    @property
    def guarantees(self) -> tuple[str, ...]:
        base = ROOT_GUARANTEES if self.root else GUARANTEES
        return base + (("seccomp: io_uring, bpf, ptrace, mount, keyctl and similar calls refused",)
                       if self.seccomp else ())

    def launch(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
               changes: Path | None = None, fds: Sequence[int] = ()) -> Launch:
        """The exact command for `argv`, with its report pipe (the caller runs it through `supervise`)."""
        fd = seccomp_filter.bpf_fd() if self.seccomp else None
        read_end, write_end = report_pipe()
        command = build_argv(argv, tree, limits, policy, root=self.root, uid=self.uid, seccomp_fd=fd,
                             changes=changes, extra_env={REPORT_FD_ENV: str(write_end)})
        child = (write_end,) + ((fd,) if fd is not None else ())
        # bwrap, the prelude's shell, setpriv and prlimit all keep inherited descriptors open.
        return Launch(command, Path("/"), {}, pass_fds=child + tuple(fds), report_fd=read_end,
                      child_fds=child + tuple(fds))

    def run(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
            fds: Sequence[int] = ()) -> RunResult:
        changes = None
        try:
            if policy.network:
                raise SandboxUnavailable("the bwrap backend never gives network access; set sandbox.backend = \"none\"")
            changes = stage_changes(tree)
            launch = self.launch(argv, tree, limits, policy, changes, fds)
        except BaseException:
            close_fds(fds)
            remove(changes)
            raise
        try:
            return supervise(launch, limits, self.name, self.guarantees, self._live)
        finally:
            remove(changes)

    def kill_all(self) -> None:
        for pid in list(self._live):
            kill_group(pid)

    def probe(self) -> str:
        """'' if the exact recipe starts /bin/true here, else the reason it does not."""
        for tool in ("bwrap", "prlimit") + (("setpriv",) if self.root else ()):
            if shutil.which(tool) is None:
                return f"{tool} not found (install bubblewrap and util-linux)"
        with tempfile.TemporaryDirectory(prefix="fixloop-probe-") as tmp:
            (Path(tmp) / "src").mkdir()
            try:
                result = self.run(["/bin/true"], RunTree(Path(tmp) / "src"), SandboxLimits(wall_seconds=10), Policy())
            except OSError as e:
                return f"bwrap did not start: {e}"
        if result.returncode != 0:
            return f"bwrap failed (exit {result.returncode}): {result.output.strip()[-300:]}"
        return ""

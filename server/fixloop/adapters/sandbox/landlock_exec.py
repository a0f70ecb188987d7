"""Supervisor for the landlock backend, run as a script: `python -I -S landlock_exec.py CONFIG_JSON -- CMD...`.

Standalone on purpose (only the standard library): it runs before anything is restricted and must
not import the project. The parent half becomes a child subreaper and, when the command ends or when
it is told to stop (SIGTERM), stops, kills and reaps every descendant (setsid does not take a process
out of a subreaper's tree) and removes what the run left in the host's /dev/shm, so no daemon and no
shared-memory file survives. The child half sets
no_new_privs, drops the capability bounding set, restricts itself with Landlock (file rules, TCP,
signal and abstract-socket scopes), loads a seccomp filter and execs the command.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import stat
import sys
import time

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_SECCOMP, PR_SET_CHILD_SUBREAPER = 1, 38, 24, 22, 36
SECCOMP_MODE_FILTER = 2
FS_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)  # execute, write, read, truncate, ioctl
READ = (1 << 0) | (1 << 2) | (1 << 3)  # execute, read file, read dir
LIBC = ctypes.CDLL(None, use_errno=True)


class RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("fd", ctypes.c_int32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def abi() -> int:
    return LIBC.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))


def _check(ret: int, what: str) -> int:
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return ret


def handled_fs(version: int) -> int:
    rights = (1 << 13) - 1  # ABI 1
    if version >= 2:
        rights |= 1 << 13  # refer
    if version >= 3:
        rights |= 1 << 14  # truncate
    if version >= 5:
        rights |= 1 << 15  # ioctl on devices
    return rights


def restrict(read_only: list[str], writable: list[str]) -> None:
    version = _check(abi(), "landlock")
    fs = handled_fs(version)
    attr = RulesetAttr(fs, 0b11 if version >= 4 else 0, 0b11 if version >= 6 else 0)
    size = ctypes.sizeof(RulesetAttr) if version >= 6 else (16 if version >= 4 else 8)
    ruleset = _check(LIBC.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                                  ctypes.c_uint32(0)), "landlock_create_ruleset")
    for paths, rights in ((read_only, READ), (writable, fs)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = rights if os.path.isdir(path) else rights & FS_FILE_RIGHTS
            rule = PathBeneath(allowed & fs, fd)
            try:
                _check(LIBC.syscall(SYS_ADD_RULE, ruleset, 1, ctypes.byref(rule), ctypes.c_uint32(0)), f"rule {path}")
            finally:
                os.close(fd)
    _check(LIBC.syscall(SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    os.close(ruleset)


def load_seccomp(bpf: bytes) -> None:
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _check(LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0), "seccomp")


def child(config: dict, argv: list[str]) -> None:
    try:
        _check(LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        if os.geteuid() == 0:
            # Root keeps uid 0 (the interpreter may sit under root's home), but no capability survives exec.
            for cap in range(64):
                if LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 and ctypes.get_errno() == 22:
                    break
        restrict(config["read_only"], config["writable"])
        if config.get("seccomp"):
            load_seccomp(bytes.fromhex(config["seccomp"]))
        os.execvp(argv[0], argv)
    except BaseException as e:
        os.write(2, f"sandbox: cannot start {argv[:1]}: {e}\n".encode())
        os._exit(126)


KILL_SECONDS = 10.0  # the whole tree is gone within this, however fast it forks; rounds are not counted
STOPPED = frozenset("TtZX")  # stopped, traced, dead: none of these can fork or signal any more


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (ppid, state) of every process, read from /proc in one pass."""
    table: dict[int, tuple[int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        table[int(name)] = (int(fields[1]), fields[0].decode("ascii", "replace"))
    return table


def descendants(table: dict[int, tuple[int, str]], root: int) -> dict[int, str]:
    """Every process below `root` (not only its children: a subreaper inherits orphans, but a chain
    of living parents keeps a whole subtree out of sight of a children-only scan), with its state,
    each parent before its children."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: dict[int, str] = {}
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        if pid not in found:
            found[pid] = table[pid][1]
            stack.extend(children.get(pid, ()))
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode("ascii", "replace")
    except (OSError, IndexError):
        return "X"


def children(pid: int) -> list[int]:
    """Children of every thread of `pid`, straight from the kernel's lists (no scan of /proc)."""
    found: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return found


def stop_tree(me: int, end: float) -> list[int]:
    """SIGSTOP every descendant; return them parents before children.

    A stopped process cannot fork. Two scans of /proc in a row that find the same processes, all
    stopped, prove that nothing is left running: any fork finished before its parent stopped, so
    before the second scan began. A scan alone is slower than one fork, so a chain could stay ahead of
    it: what a scan finds running is chased down the kernel's children lists instead (stop it, wait
    until it shows stopped, and its list of children is final), which catches up with any chain."""
    have_children_lists = os.path.exists(f"/proc/{me}/task/{me}/children")
    previous: set[int] | None = None
    while True:
        tree = descendants(process_table(), me)
        running = [pid for pid, st in tree.items() if st not in STOPPED]
        if (not running and previous == set(tree)) or time.monotonic() > end:
            return list(tree)
        previous = None if running else set(tree)
        for pid in running:  # all at once first: the chase below then rarely has to wait
            _signal(pid, signal.SIGSTOP)
        chased: set[int] = set(tree)
        stack = running if have_children_lists else []
        while stack and time.monotonic() < end:
            pid = stack.pop()
            wait_until = min(end, time.monotonic() + 0.02)  # a process in D state stops later
            while state(pid) not in STOPPED and time.monotonic() < wait_until:
                time.sleep(0.0002)
            for child in children(pid):
                if child not in chased:
                    chased.add(child)
                    _signal(child, signal.SIGSTOP)
                    stack.append(child)
        if not stack and running:
            time.sleep(0.001)


def kill_tree(seconds: float = KILL_SECONDS) -> bool:
    """Stop, kill and reap every descendant; True when none is left. Bounded by time, not rounds."""
    me = os.getpid()
    end = time.monotonic() + seconds
    while True:
        tree = stop_tree(me, end)
        if not tree:
            reap_zombies()
            return True
        # Children first: a parent's death re-parents its stopped children and, their process group
        # now orphaned, the kernel sends them SIGCONT; by then each already has its SIGKILL.
        for pid in reversed(tree):
            _signal(pid, signal.SIGKILL)
        reap_zombies()
        if time.monotonic() > end:
            return False
        time.sleep(0.001)


SHM = "/dev/shm"
SHM_DEPTH = 32  # deeper trees under a new /dev/shm folder are left (and reported), not recursed into


def shm_entries() -> set[tuple[str, int]]:
    """Names and inode numbers in /dev/shm: what the run must leave alone afterwards."""
    try:
        with os.scandir(SHM) as it:
            return {(e.name, e.inode()) for e in it}
    except OSError:
        return set()


def shm_in_use(names: set[str]) -> set[str]:
    """Which of these /dev/shm entries a living process still holds open or mapped (another program's
    segment that appeared during the run, not the run's: the run is dead by now)."""
    paths = {f"{SHM}/{n}": n for n in names}
    used: set[str] = set()

    def note(target: str) -> None:
        head = target.split("/", 4)[:4]  # ['', 'dev', 'shm', name]
        if len(head) == 4 and head[:3] == ["", "dev", "shm"]:
            name = head[3].split(" (deleted)", 1)[0]
            if f"{SHM}/{name}" in paths:
                used.add(name)

    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    note(os.readlink(f"/proc/{pid}/fd/{fd}"))
                except OSError:
                    continue
            with open(f"/proc/{pid}/maps", "rb") as f:
                for line in f:
                    fields = line.split(None, 5)
                    if len(fields) == 6:
                        note(fields[5].decode("utf-8", "surrogateescape").rstrip("\n"))
        except OSError:
            continue  # gone, or another user's process (it cannot hold our uid's private entries open)
    return used


def _remove_tree(parent: int, name: str, depth: int) -> None:
    """Remove a folder through directory fds only: no link is ever followed, whatever was planted."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        with os.scandir(fd) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
        for child, is_dir in entries:
            if is_dir and depth < SHM_DEPTH:
                _remove_tree(fd, child, depth + 1)
            elif not is_dir:
                os.unlink(child, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def clean_shm(before: set[tuple[str, int]]) -> list[str]:
    """Remove what the run created in the host's /dev/shm (Landlock cannot give it a private one):
    entries that are new since `before`, owned by the run's uid and held by no living process.
    Returns the names it could not remove."""
    try:
        top = os.open(SHM, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return []
    left: list[str] = []
    try:
        with os.scandir(top) as it:
            new = {e.name: e.inode() for e in it if (e.name, e.inode()) not in before}
        if not new:
            return []
        busy = shm_in_use(set(new))
        uid = os.getuid()
        for name, inode in new.items():
            try:
                st = os.stat(name, dir_fd=top, follow_symlinks=False)
                if st.st_uid != uid or st.st_ino != inode or name in busy:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    _remove_tree(top, name, 0)
                else:
                    os.unlink(name, dir_fd=top)
            except FileNotFoundError:
                continue
            except OSError:
                left.append(name)
    finally:
        os.close(top)
    return left


def main() -> int:
    config = json.loads(sys.argv[1])
    argv = sys.argv[sys.argv.index("--", 2) + 1:]
    LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the launcher died: clean up all the same
    shm_before = shm_entries()
    finishing = [False]

    def finish() -> None:
        finishing[0] = True
        if not kill_tree():
            left = len(descendants(process_table(), os.getpid()))
            os.write(2, f"sandbox: {left} processes of the run survived {KILL_SECONDS:.0f} s of killing\n".encode())
        if left_shm := clean_shm(shm_before):
            os.write(2, f"sandbox: could not remove {', '.join(left_shm)[:300]} from {SHM}\n".encode())

    def on_term(signum: int, frame: object) -> None:
        if finishing[0]:
            return  # the main path is already killing the tree; it exits when done
        finish()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        child(config, argv)
    status = 0
    while True:  # reap orphans as they die (a zombie still counts against the process limit)
        try:
            got, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if got == pid:
            status = st
            break
    finish()
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())

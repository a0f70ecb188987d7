"""Supervisor for the landlock backend, run as a script: `python -I -S landlock_exec.py CONFIG_JSON -- CMD...`.

Standalone on purpose (only the standard library): it runs before anything is restricted and must
not import the project. The parent half becomes a child subreaper and kills every descendant when
the command ends or when it is told to stop (SIGTERM), so no daemon survives. The child half sets
no_new_privs, drops the capability bounding set, restricts itself with Landlock (file rules, TCP,
signal and abstract-socket scopes), loads a seccomp filter and execs the command.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys

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


def descendants() -> list[int]:
    """Direct children (orphans are reparented here because this process is a subreaper)."""
    me = str(os.getpid())
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        if stat.rsplit(")", 1)[-1].split()[1] == me:
            found.append(int(name))
    return found


def reap_all() -> None:
    for _ in range(1000):
        pids = descendants()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def main() -> int:
    config = json.loads(sys.argv[1])
    argv = sys.argv[sys.argv.index("--", 2) + 1:]
    LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the launcher died: clean up all the same

    def on_term(signum: int, frame: object) -> None:
        reap_all()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        child(config, argv)
    _, status = os.waitpid(pid, 0)
    reap_all()
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())

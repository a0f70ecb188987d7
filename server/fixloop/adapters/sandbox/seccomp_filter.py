"""A seccomp deny list as BPF bytes (via pyseccomp over libseccomp), for bwrap `--seccomp FD` and landlock.

Defence in depth against kernel attack surface that tests never need. Everything else is allowed;
the denied calls fail with EPERM instead of killing the process, so a test sees a clear error.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile

# Never needed by a test run; each is a common kernel attack surface or a way out of the sandbox.
DENIED = (
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
    "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "setns", "unshare", "swapon", "swapoff",
    "reboot", "acct", "quotactl", "lookup_dcookie", "name_to_handle_at", "open_by_handle_at",
)
AF_UNIX = 1


def available() -> str:
    """'' when filters can be built here, else why not."""
    try:
        build_bpf(False)
    except Exception as e:  # ImportError, OSError from libseccomp, RuntimeError
        return f"seccomp unavailable ({type(e).__name__}: {e}); install pyseccomp and libseccomp2"
    return ""


def _filter(deny_sockets: bool):  # -> pyseccomp.SyscallFilter
    import pyseccomp as sc

    f = sc.SyscallFilter(sc.ALLOW)
    for name in DENIED:
        try:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):
            continue  # a name this libseccomp does not know: the kernel cannot have it either
    if deny_sockets:
        # Landlock has no rule for socket creation; without a network namespace, refuse sockets
        # outright. socketpair(AF_UNIX) stays: asyncio and multiprocessing use it internally.
        f.add_rule(sc.ERRNO(errno.EACCES), "socket")
        f.add_rule(sc.ERRNO(errno.EACCES), "socketpair", sc.Arg(0, sc.NE, AF_UNIX))
    return f


@functools.lru_cache(maxsize=4)
def build_bpf(deny_sockets: bool) -> bytes:
    """The filter as raw BPF, for `bwrap --seccomp FD`."""
    with tempfile.TemporaryFile() as tmp:
        _filter(deny_sockets).export_bpf(tmp)
        tmp.seek(0)
        return tmp.read()


def bpf_fd(deny_sockets: bool = False) -> int:
    """A readable fd holding the filter (bwrap reads it to the end). The caller closes it."""
    data = build_bpf(deny_sockets)
    r, w = os.pipe()
    try:
        os.write(w, data)  # a few hundred bytes: far below the pipe buffer
    finally:
        os.close(w)
    return r


def install(deny_sockets: bool) -> None:
    """Load the filter into the current process (after no_new_privs); used by the landlock supervisor."""
    _filter(deny_sockets).load()

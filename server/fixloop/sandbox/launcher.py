"""The launcher layer every backend shares: env allow-list, rlimits, capped output, wall clock, disk quota.

One loop in the calling thread reads stdout, stderr and the report pipe without blocking (each with a
cap), watches the clock and the disk, and kills the whole process group when a bound is crossed. It
stops reading shortly after the process ends even when an orphan still holds a pipe, so a run can
never hang the caller.
"""

from __future__ import annotations

import os
import re
import resource
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from .api import RunResult, SandboxLimits
from .watch import TREE_EVERY, DiskWatch, tree_usage

# A variable whose name contains one of these never reaches sandboxed code, whoever passes it.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE|SESSION", re.IGNORECASE)
DROPPED_PREFIXES = ("LD_", "DYLD_", "SSH_", "GPG_", "AWS_", "AZURE_", "GOOGLE_", "DOCKER_", "KUBE")
SECRET_VALUE = re.compile(r"sk-ant-|-----BEGIN [A-Z ]*PRIVATE KEY|gh[pousr]_[A-Za-z0-9]{20,}")
DRAIN_AFTER_EXIT = 1.0  # seconds to keep reading after the process ended (an orphan may hold the pipe)
POLL = 0.1


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """Keep only plain, non-secret variables; the caller's allow-list is checked again here."""
    kept: dict[str, str] = {}
    for name, value in env.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or "\0" in value:
            continue
        if SECRET_NAME.search(name) or name.upper().startswith(DROPPED_PREFIXES) or SECRET_VALUE.search(value):
            continue
        kept[name] = value
    return kept


def _clamp(kind: int, wanted: int) -> int:
    """Never ask for more than the launcher's own hard limit: raising it would make prlimit fail."""
    hard = resource.getrlimit(kind)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def prlimit_argv(limits: SandboxLimits) -> list[str]:
    """`prlimit ... --`, run *inside* the sandbox so the limits bind after namespaces and uid changes."""
    prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
    cpu = _clamp(resource.RLIMIT_CPU, max(1, int(limits.cpu_seconds)))
    cpu_hard = _clamp(resource.RLIMIT_CPU, cpu + 1)  # SIGXCPU first, SIGKILL a second later
    mb = 1024 * 1024
    return [
        prlimit,
        f"--cpu={cpu}:{cpu_hard}",
        f"--as={_clamp(resource.RLIMIT_AS, limits.address_space_mb * mb)}",
        f"--nproc={_clamp(resource.RLIMIT_NPROC, limits.processes)}",
        f"--fsize={_clamp(resource.RLIMIT_FSIZE, limits.file_size_mb * mb)}",
        f"--nofile={_clamp(resource.RLIMIT_NOFILE, limits.open_files)}",
        "--core=0",
        "--",
    ]


class Bounded:
    """Everything of one stream up to a cap; past it, only a mark that more came."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.overflow = False

    def feed(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.overflow = True
        if room > 0:
            self.data += chunk[:room]


def close_fds(fds: Iterable[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def report_pipe() -> tuple[int, int]:
    """(read end for the host, write end for the run); both close-on-exec until `Popen(pass_fds=...)`."""
    return os.pipe()


class Capped:
    """Head and tail of one stream; everything in between is counted and dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.cap:
                del self.tail[: len(self.tail) - self.cap]

    def text(self) -> tuple[str, str]:
        return self.head.decode("utf-8", "replace"), self.tail.decode("utf-8", "replace")


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def classify(returncode: int | None, stderr_tail: str, cpu_used: float = 0.0, cpu_limit: float = 0.0) -> str:
    """Which rlimit most likely ended the run (a hint for the report, never a verdict)."""
    sig = -returncode if returncode is not None and returncode < 0 else (
        returncode - 128 if returncode is not None and 128 < returncode < 160 else 0)
    # SIGKILL comes at the hard limit (soft + 1 s) when the program ignored SIGXCPU; `cpu_used` is the
    # reaped tree's total or the last once-a-second sample, which is at least the soft limit by then.
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_limit and cpu_used >= cpu_limit - 0.1):
        return "cpu"
    if sig == signal.SIGXFSZ or "File too large" in stderr_tail:
        return "file_size"
    if "No space left on device" in stderr_tail:
        return "disk"
    if "MemoryError" in stderr_tail or "Cannot allocate memory" in stderr_tail:
        return "memory"
    if "Too many open files" in stderr_tail:
        return "open_files"
    if "Resource temporarily unavailable" in stderr_tail and "fork" in stderr_tail.lower():
        return "processes"
    return ""


@dataclass
class Launch:
    """How a backend wants its command started; `supervise` does the rest."""

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    watch: Sequence[Path] = ()
    pass_fds: Sequence[int] = ()
    on_kill: Callable[[], None] | None = None  # extra cleanup beyond the process group (e.g. a container)
    term_grace: float = 0.0  # >0: SIGTERM the launched process first so its supervisor can reap the tree
    extra_env: Mapping[str, str] = field(default_factory=dict)  # launcher-only variables (not for the sandbox)
    report_fd: int | None = None  # read end of the report pipe (its write end is in pass_fds)
    child_fds: Sequence[int] = ()  # descriptors only the child keeps: closed here once it started


def supervise(launch: Launch, limits: SandboxLimits, backend: str, guarantees: tuple[str, ...],
              live: set[int] | None = None) -> RunResult:
    """Start the command in its own session and watch it until it ends or a bound is crossed."""
    started = time.monotonic()
    env = {**launch.env, **launch.extra_env}
    try:
        proc = subprocess.Popen(
            list(launch.argv), cwd=launch.cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, close_fds=True, pass_fds=tuple(launch.pass_fds),
        )
    except BaseException:
        if launch.report_fd is not None:
            os.close(launch.report_fd)
        raise
    finally:
        for fd in launch.child_fds:  # the host keeps no write end: EOF comes when the run's side closes
            os.close(fd)
    if live is not None:
        live.add(proc.pid)
    reaper = Reaper(proc)
    out, err = Capped(limits.output_bytes), Capped(limits.output_bytes)
    report = Bounded(limits.report_bytes)
    streams: dict[int, Capped | Bounded] = {proc.stdout.fileno(): out,  # type: ignore[union-attr]
                                            proc.stderr.fileno(): err}  # type: ignore[union-attr]
    if launch.report_fd is not None:
        streams[launch.report_fd] = report
    watch = DiskWatch(launch.watch, limits.disk_quota_mb, limits.disk_files)
    selector = selectors.DefaultSelector()
    for fd in streams:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    deadline = started + limits.wall_seconds
    ended_at: float | None = None
    limit_hit = ""
    next_check = started
    next_tree = started + TREE_EVERY
    memory_cap = limits.memory_total_mb * 1024 * 1024
    try:
        while True:
            if selector.get_map():
                for key, _ in selector.select(POLL):
                    try:
                        chunk = os.read(key.fd, 1 << 16)
                    except BlockingIOError:
                        continue
                    except OSError:
                        chunk = b""
                    if chunk:
                        streams[key.fd].feed(chunk)
                    else:
                        selector.unregister(key.fd)
            else:  # both pipes closed, the process may still run: keep watching it
                time.sleep(POLL)
            now = time.monotonic()
            if ended_at is None and reaper.done():
                ended_at = now
                kill_group(proc.pid)  # daemons left in the group go with it
            if ended_at is not None:
                if not selector.get_map() or now - ended_at > DRAIN_AFTER_EXIT:
                    break
                continue
            if now >= next_check:
                next_check = now + POLL
                if now >= deadline:
                    limit_hit = "wall"
                elif watch.exceeded():
                    limit_hit = "disk"
                elif now >= next_tree:
                    next_tree = now + TREE_EVERY
                    rss, most_cpu = tree_usage(proc.pid)
                    reaper.cpu_seen = max(reaper.cpu_seen, most_cpu)
                    if memory_cap and rss > memory_cap:
                        limit_hit = "memory"
                if limit_hit:
                    _kill(reaper, launch)
    finally:
        if ended_at is None:
            _kill(reaper, launch)
        reaper.wait()
        if live is not None:
            live.discard(proc.pid)
        selector.close()
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        if launch.report_fd is not None:
            os.close(launch.report_fd)
    rc = proc.returncode
    eh, et = err.text()
    oh, ot = out.text()
    if not limit_hit and rc != 0:
        limit_hit = classify(rc, eh + et, max(reaper.cpu, reaper.cpu_seen), limits.cpu_seconds)
    timed_out = limit_hit == "wall"
    return RunResult(
        returncode=None if timed_out else rc, signal=-rc if rc is not None and rc < 0 else None,
        timed_out=timed_out, limit_hit=limit_hit, stdout_head=oh, stdout_tail=ot, stdout_total=out.total,
        stderr_head=eh, stderr_tail=et, stderr_total=err.total, duration=time.monotonic() - started,
        backend=backend, guarantees=guarantees, report=bytes(report.data), report_overflow=report.overflow,
        cpu_seconds=reaper.cpu, peak_mb=reaper.peak_kb / 1024,
    )


class Reaper:
    """Waits for the launched process with wait4, so the CPU time of the whole reaped tree is known."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.cpu = 0.0  # from wait4: the whole reaped tree
        self.cpu_seen = 0.0  # the most any one process of the tree had used at the last sample
        self.peak_kb = 0  # from wait4: the largest resident set of the tree's processes (run telemetry)

    def done(self, block: bool = False) -> bool:
        if self.proc.returncode is not None:
            return True
        try:
            pid, status, usage = os.wait4(self.proc.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            self.proc.returncode = self.proc.returncode if self.proc.returncode is not None else -signal.SIGKILL
            return True
        if pid == 0:
            return False
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.cpu = usage.ru_utime + usage.ru_stime  # includes every descendant the tree reaped
        self.peak_kb = usage.ru_maxrss
        return True

    def wait(self, timeout: float | None = None) -> bool:
        if timeout is None:
            return self.done(block=True)
        end = time.monotonic() + timeout
        while not self.done():
            if time.monotonic() >= end:
                return False
            time.sleep(0.02)
        return True


def _kill(reaper: Reaper, launch: Launch) -> None:
    proc = reaper.proc
    if launch.term_grace > 0 and not reaper.done():
        try:
            proc.terminate()
        except OSError:
            pass
        reaper.wait(launch.term_grace)
    kill_group(proc.pid)
    if launch.on_kill is not None:
        try:
            launch.on_kill()
        except Exception:  # cleanup of an outside resource must not mask the run's result
            pass

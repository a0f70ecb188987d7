"""The launcher every backend shares: start the command in its own session and supervise it.

One loop in the calling thread reads stdout, stderr and the report pipe without blocking (each with a
cap), watches the clock, the disk and the tree's memory, and kills the whole process group when a bound
is crossed. It stops reading shortly after the process ends even when an orphan still holds a pipe, so a
run can never hang the caller. The pieces it uses each have their own module: the environment policy
(`envpolicy`), rlimits (`rlimits`), capped buffers (`streams`), reaping and killing (`reaper`), the disk
(`watch`).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from fixloop.adapters.sandbox.api import RunResult, SandboxLimits
from fixloop.adapters.sandbox.reaper import Reaper, kill_group
from fixloop.adapters.sandbox.rlimits import classify
from fixloop.adapters.sandbox.streams import Bounded, Capped
from fixloop.adapters.sandbox.watch import TREE_EVERY, DiskWatch, tree_usage

DRAIN_AFTER_EXIT = 1.0  # seconds to keep reading after the process ended (an orphan may hold the pipe)
POLL = 0.1


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
    proc = _start(launch)
    if live is not None:
        live.add(proc.pid)
    run = _Supervised(proc, launch, limits, started)
    try:
        run.watch()
    finally:
        run.close()
        if live is not None:
            live.discard(proc.pid)
    return run.result(backend, guarantees)


def _start(launch: Launch) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            list(launch.argv), cwd=launch.cwd, env={**launch.env, **launch.extra_env}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
            pass_fds=tuple(launch.pass_fds),
        )
    except BaseException:
        if launch.report_fd is not None:
            os.close(launch.report_fd)
        raise
    finally:
        for fd in launch.child_fds:  # the host keeps no write end: EOF comes when the run's side closes
            os.close(fd)


class _Supervised:
    """One launched process and what the host keeps of it while it runs."""

    def __init__(self, proc: subprocess.Popen[bytes], launch: Launch, limits: SandboxLimits, started: float) -> None:
        self.proc = proc
        self.launch = launch
        self.limits = limits
        self.started = started
        self.reaper = Reaper(proc)
        self.out, self.err = Capped(limits.output_bytes), Capped(limits.output_bytes)
        self.report = Bounded(limits.report_bytes)
        self.streams: dict[int, Capped | Bounded] = {proc.stdout.fileno(): self.out,  # type: ignore[union-attr]
                                                     proc.stderr.fileno(): self.err}  # type: ignore[union-attr]
        if launch.report_fd is not None:
            self.streams[launch.report_fd] = self.report
        self.disk = DiskWatch(launch.watch, limits.disk_quota_mb, limits.disk_files)
        self.selector = selectors.DefaultSelector()
        for fd in self.streams:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ)
        self.deadline = started + limits.wall_seconds
        self.ended_at: float | None = None
        self.limit_hit = ""
        self.next_check = started
        self.next_tree = started + TREE_EVERY

    def watch(self) -> None:
        """Read and check until the process ended and its pipes are drained, or a bound killed it."""
        while True:
            self._pump()
            now = time.monotonic()
            if self.ended_at is None and self.reaper.done():
                self.ended_at = now
                kill_group(self.proc.pid)  # daemons left in the group go with it
            if self.ended_at is not None:
                if not self.selector.get_map() or now - self.ended_at > DRAIN_AFTER_EXIT:
                    return
                continue
            if now >= self.next_check:
                self.next_check = now + POLL
                self.limit_hit = self._bound_crossed(now)
                if self.limit_hit:
                    self._kill()

    def _pump(self) -> None:
        if not self.selector.get_map():  # both pipes closed, the process may still run: keep watching it
            time.sleep(POLL)
            return
        for key, _ in self.selector.select(POLL):
            try:
                chunk = os.read(key.fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                self.streams[key.fd].feed(chunk)
            else:
                self.selector.unregister(key.fd)

    def _bound_crossed(self, now: float) -> str:
        if now >= self.deadline:
            return "wall"
        if self.disk.exceeded():
            return "disk"
        if now >= self.next_tree:
            self.next_tree = now + TREE_EVERY
            rss, most_cpu = tree_usage(self.proc.pid)
            self.reaper.cpu_seen = max(self.reaper.cpu_seen, most_cpu)
            memory_cap = self.limits.memory_total_mb * 1024 * 1024
            if memory_cap and rss > memory_cap:
                return "memory"
        return ""

    def _kill(self) -> None:
        self.reaper.kill(self.launch.term_grace, self.launch.on_kill)

    def close(self) -> None:
        if self.ended_at is None:
            self._kill()
        self.reaper.wait()
        self.selector.close()
        for stream in (self.proc.stdout, self.proc.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        if self.launch.report_fd is not None:
            os.close(self.launch.report_fd)

    def result(self, backend: str, guarantees: tuple[str, ...]) -> RunResult:
        rc = self.proc.returncode
        eh, et = self.err.text()
        oh, ot = self.out.text()
        limit_hit = self.limit_hit
        if not limit_hit and rc != 0:
            limit_hit = classify(rc, eh + et, max(self.reaper.cpu, self.reaper.cpu_seen), self.limits.cpu_seconds)
        timed_out = limit_hit == "wall"
        return RunResult(
            returncode=None if timed_out else rc, signal=-rc if rc is not None and rc < 0 else None,
            timed_out=timed_out, limit_hit=limit_hit, stdout_head=oh, stdout_tail=ot, stdout_total=self.out.total,
            stderr_head=eh, stderr_tail=et, stderr_total=self.err.total,
            duration=time.monotonic() - self.started, backend=backend, guarantees=guarantees,
            report=bytes(self.report.data), report_overflow=self.report.overflow,
            cpu_seconds=self.reaper.cpu, peak_mb=self.reaper.peak_kb / 1024,
        )

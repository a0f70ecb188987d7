"""Ending a launched process: reaping it (with the CPU time of its whole tree) and killing its group."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Callable


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


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

    def kill(self, term_grace: float = 0.0, on_kill: Callable[[], None] | None = None) -> None:
        """SIGTERM first when the process supervises a tree of its own (`term_grace` > 0), then the group."""
        if term_grace > 0 and not self.done():
            try:
                self.proc.terminate()
            except OSError:
                pass
            self.wait(term_grace)
        kill_group(self.proc.pid)
        if on_kill is not None:
            try:
                on_kill()
            except Exception:  # cleanup of an outside resource must not mask the run's result
                pass

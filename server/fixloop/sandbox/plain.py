"""The unsandboxed backend (`sandbox = "none"`): process-group kill, capped output, nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Sequence

from .api import Policy, RunResult, SandboxLimits


class CappedReader(threading.Thread):
    """Keeps the head and tail of a stream and drains the rest, so output never grows the parent."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def run(self) -> None:
        try:
            while chunk := self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536):
                self.total += len(chunk)
                room = self.cap - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk:
                    self.tail += chunk
                    if len(self.tail) > self.cap:
                        del self.tail[: len(self.tail) - self.cap]
        except (OSError, ValueError):
            pass

    def text(self) -> tuple[str, str]:
        return self.head.decode("utf-8", "replace"), self.tail.decode("utf-8", "replace")


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_process(
    argv: Sequence[str], cwd: Path, env: dict[str, str], limits: SandboxLimits, backend: str,
    guarantees: tuple[str, ...], live: set[int] | None = None,
) -> RunResult:
    """Start `argv` in its own session, read capped output, kill the whole group on timeout."""
    started = time.monotonic()
    proc = subprocess.Popen(
        list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
    )
    if live is not None:
        live.add(proc.pid)
    out = CappedReader(proc.stdout, limits.output_bytes)  # type: ignore[arg-type]
    err = CappedReader(proc.stderr, limits.output_bytes)  # type: ignore[arg-type]
    out.start()
    err.start()
    timed_out = False
    try:
        proc.wait(timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        kill_group(proc.pid)  # also reaps daemons left in the group after a normal exit
        proc.wait()
        if live is not None:
            live.discard(proc.pid)
    # An orphan outside the group may hold the pipe open: stop reading a second after the end.
    out.join(1.0)
    err.join(1.0)
    for stream in (proc.stdout, proc.stderr):
        try:
            stream.close()  # type: ignore[union-attr]
        except OSError:
            pass
    rc = proc.returncode
    sig = -rc if rc is not None and rc < 0 else None
    oh, ot = out.text()
    eh, et = err.text()
    return RunResult(
        returncode=None if timed_out else rc, signal=sig, timed_out=timed_out,
        limit_hit="wall" if timed_out else "", stdout_head=oh, stdout_tail=ot, stdout_total=out.total,
        stderr_head=eh, stderr_tail=et, stderr_total=err.total, duration=time.monotonic() - started,
        backend=backend, guarantees=guarantees,
    )


class PlainSandbox:
    """No isolation at all. Only for explicit opt-in; every result says so."""

    name = "none"

    def __init__(self) -> None:
        self._live: set[int] = set()

    def run(self, argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy) -> RunResult:
        return run_process(argv, workspace, dict(policy.env), limits, self.name,
                           ("UNSANDBOXED: output cap and wall-clock kill only",), self._live)

    def kill_all(self) -> None:
        for pid in list(self._live):
            kill_group(pid)

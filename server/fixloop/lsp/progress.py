"""Loop events -> `$/progress` report messages, at a bounded rate.

The message is the run's one-line status (`fixloop.application.progress.RunProgress`): phase, candidate n/N, the suspect
being tried (path:line and operator) and the time left, e.g. `search: candidate 37/400, calc/ops.py:12
swap_comparison (...), ~2m10s left at 0.4 s a candidate`. A run may yield many events a second; the client
gets at most one report per `interval`, the newest state at the end of it, and one every `heartbeat` while
nothing happens (a long baseline still shows its time going by).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

from fixloop.core.model import Event
from fixloop.kit.printable import printable
from fixloop.application.progress import RunProgress

BEGIN_MESSAGE = "starting"
INTERVAL = 0.5
HEARTBEAT = 5.0

Later = Callable[[float, Callable[[], None]], Any]  # asyncio's loop.call_later: (delay, callback) -> a handle


class ProgressReporter:
    """`send(message)` reports; `later(delay, callback)` schedules on the event loop (its handle has `cancel()`).
    Called on the event loop only."""

    def __init__(self, send: Callable[[str], None], later: Later, clock: Callable[[], float] = time.monotonic,
                 interval: float = INTERVAL, heartbeat: float = HEARTBEAT) -> None:
        self.send, self.later, self.clock = send, later, clock
        self.interval, self.heartbeat = interval, heartbeat
        self.state = RunProgress()
        self.sent_at = float("-inf")
        self.closed = False
        self._pending: Any = None  # the trailing report of the current interval
        self._beat: Any = None

    def update(self, event: Event) -> None:
        self.state.update(event)
        if self.closed:
            return
        wait = self.sent_at + self.interval - self.clock()
        if wait <= 0:
            self._send()
        elif self._pending is None:
            self._pending = self.later(wait, self._trailing)

    def message(self) -> str:
        return self.state.line(self.clock())

    def close(self) -> None:
        self.closed = True
        for handle in (self._pending, self._beat):
            if handle is not None:
                handle.cancel()
        self._pending = self._beat = None

    def _trailing(self) -> None:
        self._pending = None
        if not self.closed:
            self._send()

    def _send(self) -> None:
        self.sent_at = self.clock()
        self.send(self.message())
        if self._beat is not None:
            self._beat.cancel()
        self._beat = self.later(self.heartbeat, self._beating)

    def _beating(self) -> None:
        self._beat = None
        if not self.closed and self.state.phase != "done":
            self._send()


def end_message(summary: Mapping[str, Any]) -> str:
    """`<status>: <message>`, and the first next step when the run did not end fixed."""
    text = f"{summary.get('status')}: {summary.get('message', '')}"
    steps = summary.get("next_steps") or []
    if steps:
        text += f"; next: {steps[0]}"
    return printable(text)

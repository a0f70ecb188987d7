"""How a run ends: its status and message, the setting whose limit ended it, and the limit checks the loop
makes between candidates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from fixloop.core import limits
from fixloop.core.model import Patch, Status, Task, Usage
from fixloop.core.ports import Ports


@dataclass(frozen=True)
class End:
    """How a run ends. `keep_baseline` is False only for a cancellation seen before the candidates: that
    outcome carries no baseline (so the run summary lists no failing tests), as it always has."""

    status: Status
    message: str
    patch: Patch | None = None
    flaky: tuple[str, ...] = ()
    keep_baseline: bool = True
    limit: str = ""  # the setting whose limit ended the run (Outcome.stopped_by)
    still_failing: tuple[str, ...] = ()  # a fix of some failing tests: the others (Outcome.still_failing)


CANCELLED = End(Status.CANCELLED, "cancelled", keep_baseline=False)


class Counted(Protocol):
    started: float
    candidates: int
    iterations: int


def limit_reached(task: Task, s: Counted, ports: Ports) -> End | None:
    if ports.cancelled():
        return End(Status.CANCELLED, "cancelled")
    hit = limits.reached(task.limits, ports.now() - s.started, s.candidates, s.iterations, usage(ports))
    return End(Status.LIMITS, hit[1], limit=hit[0]) if hit else None


def usage(ports: Ports) -> Usage:
    return limits.usage(ports.proposers)

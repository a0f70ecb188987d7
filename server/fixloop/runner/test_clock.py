"""How long a test may run, learned as the run goes (pure: no I/O).

Before anything is known a test gets a short CPU probe: a loop that never ends burns CPU and is stopped
after `probe` seconds of it, however busy the machine is, while a test waiting on a sleep or a lock
still has the user's whole wall-clock limit (`ceiling`). Once unpatched runs finished, a candidate's tests
get ten times what those tests needed (at least `floor`), so a candidate that hangs costs about a
second. Tests that hit a limit are remembered as hung: they go last in a fail-fast selection and are
never re-run just to see whether they hang again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..core.model import TestReport

PROBE_CPU_SECONDS = 2.0
TRACED = 3.0  # a run that records per-test lines (coverage.py, or settrace) spends up to this much more CPU


@dataclass
class TestClock:
    __test__ = False  # not a pytest test class

    ceiling: float  # the user's per-test wall limit; 0 or less: no per-test limits at all
    probe: float = PROBE_CPU_SECONDS
    floor: float = 1.0
    factor: float = 10.0
    finished_seconds: float = 0.0  # pytest-measured time of the tests that finished, slowest unpatched run
    hung: set[str] = field(default_factory=set)

    def observe(self, report: TestReport) -> None:
        """Learn from an unpatched run: what finished teaches the limit, what hit one is hung."""
        finished = [r for r in report.results if not r.hung]
        self.finished_seconds = max(self.finished_seconds, sum(r.duration for r in finished))
        self.hung.update(r.nodeid for r in report.results if r.hung)

    def learned(self) -> float:
        """A candidate's per-test limit: ten times what the unpatched tests needed, at least `floor`."""
        return min(self.ceiling, max(self.floor, self.factor * self.finished_seconds + 0.5))

    def limits(self, screening: bool, traced: bool = False) -> tuple[float, float]:
        """(wall, cpu) seconds per test; 0 means none. Screening a candidate gets the learned limit for
        both; every other run the user's wall limit and a CPU limit of at least the probe. A traced run's
        CPU limit is `TRACED` times larger, so the tracer's cost never makes a slow test look hung."""
        if self.ceiling <= 0:
            return 0.0, 0.0
        wall, cpu = (self.learned(), self.learned()) if screening else (
            self.ceiling, max(self.probe, self.learned()))
        return wall, min(self.ceiling, cpu * (TRACED if traced else 1.0))

    def order(self, select: Sequence[str]) -> tuple[str, ...]:
        """Known-hung tests last: with fail-fast, a candidate that fails a quick test costs no wait."""
        return tuple(sorted(select, key=lambda nodeid: nodeid in self.hung))

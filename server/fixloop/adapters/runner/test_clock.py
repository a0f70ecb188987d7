"""How long a test may run, learned from the project's own timings (pure: no I/O).

The baseline knows nothing yet: a test gets a short CPU probe (a loop that never ends burns CPU and is
stopped after `probe` seconds of it, however busy the machine is) and the user's wall limit (`ceiling`).
Hitting either in the baseline proves nothing: a slow but correct test hits the probe too, the more so
under the coverage tracer. So such a test is judged again alone and untraced, with the ceiling for both
(`rejudging`); only a test that hits the ceiling there is hung.

Once unpatched runs finished, each test of a candidate's screening run gets `factor` times what that
test itself needed, plus the largest fixture time any test showed (a session fixture is paid by whichever
test runs first), at least `floor` and at most the ceiling, so a candidate that hangs on a fast suite costs
about a second while a test that took 26 s keeps its time. A test whose own time says little of a working
version (it failed) gets `factor` times the slowest finished test of its file, or of the whole suite's
time when its file has none. Tests that hit a limit are remembered as hung: they go last in a fail-fast
selection and are never re-run just to see whether they hang again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from fixloop.core.model import TestReport, TestResult

PROBE_CPU_SECONDS = 2.0
TRACED = 3.0  # a run that records per-test lines (coverage.py, or settrace) spends up to this much more CPU
STARTUP = 3.0  # what a screening run may spend besides its tests (pytest's start in the warm child)


@dataclass(frozen=True)
class Screen:
    """The limits of one screening run: per test by node id, `default` for a test not named, and the
    whole run's budget (the sum, a backstop: the per-test limits stop a hang first)."""

    default: tuple[float, float]  # (wall, cpu) seconds; 0 means none
    per_test: dict[str, float]
    budget: float


@dataclass
class TestClock:
    __test__ = False  # not a pytest test class

    ceiling: float  # the user's per-test wall limit; 0 or less: no per-test limits at all
    probe: float = PROBE_CPU_SECONDS
    floor: float = 1.0
    factor: float = 10.0
    finished_seconds: float = 0.0  # pytest-measured time of the tests that finished, slowest unpatched run
    own: dict[str, float] = field(default_factory=dict)  # a test's own time where it finished unpatched
    failing: set[str] = field(default_factory=set)  # finished, but failed: its time says little of a fix
    slack: float = 0.0  # the largest setup and teardown time of one test
    hung: set[str] = field(default_factory=set)

    def observe(self, report: TestReport) -> None:
        """Learn from an unpatched run: what finished teaches the limits, what hit one is hung."""
        finished = [r for r in report.results if not r.hung]
        self.finished_seconds = max(self.finished_seconds, sum(_spent(r) for r in finished))
        for r in finished:
            self.own[r.nodeid] = max(self.own.get(r.nodeid, 0.0), _spent(r))
            self.slack = max(self.slack, r.seconds - r.duration)
            if r.failed:
                self.failing.add(r.nodeid)
        self.hung.update(r.nodeid for r in report.results if r.hung)

    def learned(self) -> float:
        """The limit of a test that taught nothing of its own: ten times what the unpatched tests needed
        together, at least `floor`."""
        return min(self.ceiling, max(self.floor, self.factor * self.finished_seconds + 0.5))

    def limit(self, nodeid: str) -> float:
        """A candidate's limit for one test, from that test's own time (or its file's, when it failed)."""
        if self.ceiling <= 0:
            return 0.0
        basis = self.own.get(nodeid) if nodeid not in self.failing and nodeid not in self.hung else None
        if basis is None:
            file = nodeid.partition("::")[0]
            siblings = [s for n, s in self.own.items() if n.partition("::")[0] == file and n not in self.failing]
            if not siblings:
                return self.learned()
            basis = max([*siblings, self.own.get(nodeid, 0.0)])
        return min(self.ceiling, max(self.floor, self.factor * basis + 0.5) + self.slack)

    def screening(self, select: Sequence[str]) -> Screen:
        """The limits of a candidate's screening run over `select` (the whole suite when empty)."""
        if self.ceiling <= 0:
            return Screen((0.0, 0.0), {}, 0.0)
        known = set(self.own) | self.hung
        chosen = {s.rstrip("/") for s in select}
        per_test = {n: self.limit(n) for n in known if not chosen or _selected(n, chosen)}
        # A selection entry that names no known test (a new one) gets the limit of a test without a time.
        unknown = len([s for s in chosen if s not in known and not any(_selected(n, {s}) for n in known)]
                      ) if chosen else 1
        default = self.learned()
        return Screen((default, default), per_test, sum(per_test.values()) + unknown * default + STARTUP)

    def limits(self, screening: bool, traced: bool = False) -> tuple[float, float]:
        """(wall, cpu) seconds per test; 0 means none. Screening a candidate gets the learned limit for
        both; every other run the user's wall limit and a CPU limit of at least the probe. A traced run's
        CPU limit is `TRACED` times larger, so the tracer's cost never makes a slow test look hung."""
        if self.ceiling <= 0:
            return 0.0, 0.0
        wall, cpu = (self.learned(), self.learned()) if screening else (
            self.ceiling, max(self.probe, self.learned()))
        return wall, min(self.ceiling, cpu * (TRACED if traced else 1.0))

    def rejudging(self) -> tuple[float, float]:
        """A test judged again after it hit a limit in the baseline: the user's ceiling, wall and CPU."""
        return self.ceiling, self.ceiling

    def order(self, select: Sequence[str]) -> tuple[str, ...]:
        """Known-hung tests last: with fail-fast, a candidate that fails a quick test costs no wait."""
        return tuple(sorted(select, key=lambda nodeid: nodeid in self.hung))


def _spent(result: TestResult) -> float:
    """A test's time: the whole test when measured, else its call."""
    return result.took


def _selected(nodeid: str, chosen: set[str]) -> bool:
    """Whether a selection (node ids, classes, files or folders) takes this test."""
    parts = nodeid.split("[", 1)[0].split("::")
    if nodeid in chosen or any("::".join(parts[:i]) in chosen for i in range(1, len(parts) + 1)):
        return True
    path = parts[0]
    while "/" in path:
        path = path.rsplit("/", 1)[0]
        if path in chosen:
            return True
    return False

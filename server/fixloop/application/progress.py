"""What a run is doing, in one line: the phase, candidate n of N, the suspect being tried and the time left.

Folded from the loop's events. The terminal (`fixloop fix`) and the editor (`$/progress`) show the same
line, e.g. `search: candidate 37/400, calc/ops.py:12 swap_comparison (`>` -> `>=`), ~2m10s left at 0.4 s a
candidate`. N is the candidate limit; the time left is the smallest of the wall-time budget still unspent, what
is left of the offline search's own time (`search_factor` baselines) while its candidates are tried, and what
the remaining candidates would take at the pace so far. Everything from the project is `printable`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from fixloop.core.limits import SEARCH_CANDIDATES, search_budget
from fixloop.core.model import Event
from fixloop.kit.printable import printable

# The phase a run is in after each kind of event (the kinds not listed leave it as it is).
_PHASE_AFTER = {"started": "baseline", "baseline": "localize", "retrieved": "localize", "localized": "search",
                "candidate": "search", "checked": "search", "tested": "search", "reflected": "search",
                "confirming": "confirm", "finished": "done"}
SUMMARY_CHARS = 48  # of a candidate's own summary (an operator's edit, a model's sentence)


def duration(seconds: float) -> str:
    """`45 s`, `2m10s`, `1h05m`: short, and exact enough for a wait."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass
class RunProgress:
    phase: str = "start"
    phase_at: float | None = None  # when the phase began (event time)
    started: float | None = None  # the run's "started" event
    wall: float = 0.0  # the wall-time limit, once the run said it
    limit: int = 0  # the candidate limit: N
    candidate: int = 0  # n: the candidate being tried (or the last one)
    first_at: float | None = None  # when candidate 1 began
    latest_at: float | None = None  # when candidate n began
    where: str = ""  # the suspect being tried, path:line
    operator: str = ""
    summary: str = ""
    passed: int = 0
    failed: int = 0
    iteration: int = 0
    tokens: int = 0
    search_factor: float = 0.0  # the offline search's time in baselines (0: no such limit)
    baseline_seconds: float | None = None  # what the baseline took, once it said
    proposer: str = ""  # of the candidate being tried: a model's are not bound by the offline search's time

    def update(self, event: Event) -> bool:
        """Take one event; True when the run moved to another phase."""
        d = event.data
        if event.kind == "started":
            self.started = event.time
            limits = d.get("limits")
            if isinstance(limits, Mapping):
                self.wall = float(limits.get("wall_seconds") or 0.0)
                self.limit = _int(limits.get("max_candidates"), self.limit)
                factor = limits.get("search_factor")
                self.search_factor = float(factor) if isinstance(factor, (int, float)) else 0.0
        elif event.kind in ("baseline", "tested"):
            self.passed, self.failed = _int(d.get("passed"), self.passed), _int(d.get("failed"), self.failed)
            seconds = d.get("seconds")
            if event.kind == "baseline" and isinstance(seconds, (int, float)):
                self.baseline_seconds = float(seconds)
        elif event.kind == "candidate" and event.candidate is not None:
            self._candidate(event)
        if "iteration" in d:
            self.iteration = _int(d.get("iteration"), self.iteration)
        if "tokens" in d:
            self.tokens = _int(d.get("tokens"), self.tokens)
        phase = _PHASE_AFTER.get(event.kind, self.phase)
        moved = phase != self.phase
        if moved or self.phase_at is None:
            self.phase, self.phase_at = phase, event.time
        return moved

    def _candidate(self, event: Event) -> None:
        d = event.data
        self.candidate = max(self.candidate, event.candidate or 0)
        self.limit = _int(d.get("limit"), self.limit)
        self.first_at = event.time if self.first_at is None else self.first_at
        self.latest_at = event.time
        self.where = printable(d.get("where") or "")
        self.operator = printable(d.get("operator") or "")
        self.proposer = str(d.get("proposer") or "")
        summary = str(d.get("summary") or "")
        if self.where and summary.startswith(self.where + ": "):  # the offline engine's labels repeat the place
            summary = summary[len(self.where) + 2:]
        summary = printable(summary)
        self.summary = summary if len(summary) <= SUMMARY_CHARS else summary[:SUMMARY_CHARS - 1] + "…"

    def seconds_per_candidate(self, now: float) -> float | None:
        """The pace so far: n - 1 candidates were tried from candidate 1 to candidate n; once candidate n has
        taken longer than that pace, the pace counts it too."""
        if self.candidate < 2 or self.first_at is None or self.latest_at is None:
            return None
        done = max(0.0, self.latest_at - self.first_at) / (self.candidate - 1)
        return max(done, (now - self.first_at) / self.candidate)

    def search_left(self, now: float) -> float | None:
        """What is left of the offline search's own time (core/limits.search_time_up), while it searches."""
        if self.baseline_seconds is None or self.started is None or self.proposer == "llm":
            return None
        elapsed = now - self.started
        budget = search_budget(self.search_factor, self.baseline_seconds, self.candidate)
        floor = search_budget(self.search_factor, self.baseline_seconds)
        per = self.seconds_per_candidate(now)
        if budget is not None and floor is not None and budget > floor and per is not None:
            # Until its share of candidates is tried the search goes on past its time: at this pace, so long.
            budget = min(budget, max(floor, elapsed + per * (SEARCH_CANDIDATES - self.candidate)))
        return None if budget is None else budget - elapsed

    def time_left(self, now: float) -> str:
        """The smallest of the wall budget left, the offline search's time left and the estimate at the pace
        so far, saying which it is."""
        per = self.seconds_per_candidate(now)
        wall_left = self.wall - (now - self.started) if self.wall and self.started is not None else None
        estimate = per * max(0, self.limit - self.candidate) if per is not None and self.limit else None
        bounds = [b for b in (wall_left, self.search_left(now)) if b is not None]
        bound = min(bounds, default=None)
        if estimate is not None and (bound is None or estimate <= bound):
            return f"~{duration(estimate)} left at {per:.1f} s a candidate"
        if bound is None:
            return ""
        pace = f", {per:.1f} s a candidate" if per is not None else ""
        if bound != wall_left:
            return f"{duration(bound)} left of the offline search's time{pace}"
        return f"{duration(bound)} left before the wall-time limit{pace}"

    def line(self, now: float) -> str:
        """The one line to show now."""
        since = duration(now - self.phase_at) if self.phase_at is not None else ""
        if self.phase == "baseline":
            text = f"baseline: running the tests as they are ({since})"
        elif self.phase == "localize":
            text = f"localize: {self.failed} failing, {self.passed} passing; ranking suspect lines ({since})"
        elif self.phase in ("search", "confirm") and self.candidate:
            text = f"{self.phase}: {self._trying()}"
            if self.phase == "confirm":
                text += ": passes the failing tests, running the whole suite"
            left = self.time_left(now)
            text += f", {left}" if left else ""
        elif self.phase == "search":
            text = f"search: preparing candidates ({since})"
        elif self.phase == "start":
            text = "starting: copying the project"
        else:
            text = self.phase
        if self.iteration or self.tokens:
            text += f", iteration {self.iteration}, {self.tokens} tokens"
        return text

    def _trying(self) -> str:
        n = f"candidate {self.candidate}/{self.limit}" if self.limit else f"candidate {self.candidate}"
        what = " ".join(x for x in (self.where, self.operator) if x)
        return f"{n}, {what}" + (f" ({self.summary})" if self.summary else "") if what else n

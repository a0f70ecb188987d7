"""The loop's vocabulary: frozen values only, no I/O."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


class Status(str, enum.Enum):
    FIXED = "fixed"
    GAVE_UP = "gave_up"
    LIMITS = "limits"
    CANCELLED = "cancelled"
    ERROR = "error"
    NOTHING_TO_FIX = "nothing_to_fix"
    FLAKY = "flaky"


@dataclass(frozen=True)
class Limits:
    max_iterations: int = 60
    max_candidates: int = 400
    wall_seconds: float = 600.0
    breaker_repeats: int = 3
    baseline_timeout: float = 0.0  # seconds the baseline may take; 0: only the run's wall_seconds bounds it
    test_timeout: float = 0.0  # seconds each later pytest run may take; 0: derived from the baseline's time
    per_test_timeout: float = 30.0  # 0: no per-test limit
    hang_probe_seconds: float = 2.0  # CPU seconds a test gets in the baseline before it is judged again
    screening_factor: float = 10.0  # a candidate's test may take this many times its own baseline time...
    screening_floor: float = 1.0  # ...and at least this many seconds
    select_covering_after: float = 0.0  # a baseline this long screens candidates on the tests covering the change
    max_tokens: int = 200_000
    max_cost_usd: float = 2.0
    plausible_lookahead: int = 10  # candidates still inspected after the first fix, for a smaller one
    search_factor: float = 6.0  # the offline search ends once the run took this many baselines (its floors: core/limits.py)


@dataclass(frozen=True)
class Scope:
    """Which tests the run is about: all, one file, or one node id."""

    kind: str = "all"  # all | file | node
    value: str = ""

    def selection(self) -> tuple[str, ...]:
        return () if self.kind == "all" else (self.value,)


@dataclass(frozen=True)
class Task:
    workspace: Path
    scope: Scope = Scope()
    limits: Limits = Limits()
    overlays: Mapping[str, str] = field(default_factory=dict)
    allow_test_edits: bool = False
    seed: int = 0  # every random choice of the run derives from it (logged in the `started` event)


@dataclass(frozen=True)
class Frame:
    path: str  # relative to the workspace when inside it
    line: int
    function: str
    in_project: bool = True


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest test class

    nodeid: str
    outcome: str  # passed | failed | error | skipped | xfailed | xpassed
    duration: float = 0.0
    exc_type: str = ""
    message: str = ""
    frames: tuple[Frame, ...] = ()
    longrepr: str = ""
    seconds: float = 0.0  # the whole test, setup to teardown, when the runner measured it

    @property
    def took(self) -> float:
        """What the test took: fixloop's own clock over the whole test (set-up to teardown) when it measured
        it, else pytest's time of its call. pytest's own times follow a clock the test fakes (freezegun moves
        them by the hours the test travels), fixloop's does not."""
        return self.seconds if self.seconds > 0 else self.duration

    @property
    def hung(self) -> bool:
        """Stopped at a time limit (a soft one, or the run was killed inside this test)."""
        return self.exc_type == "Timeout" and self.outcome in ("failed", "error")

    @property
    def failed(self) -> bool:
        return self.outcome in ("failed", "error")


@dataclass(frozen=True)
class TestReport:
    __test__ = False

    results: tuple[TestResult, ...] = ()
    collection_errors: tuple[str, ...] = ()
    returncode: int = 0
    duration: float = 0.0
    timed_out: bool = False
    output_tail: str = ""
    problem: str = ""  # the run itself failed (no pytest, crash): not a test outcome
    cpu_seconds: float = 0.0  # CPU time of the run's whole process tree, when the runner measured it
    peak_mb: float = 0.0  # the largest resident set of any one process of the run, when measured
    # Project files pytest itself had imported before any test (the project is one of its dependencies):
    # a change to them can change how results are reported (the runner's canary checks such a pass).
    harness: tuple[str, ...] = ()

    @property
    def failed(self) -> tuple[TestResult, ...]:
        return tuple(r for r in self.results if r.failed)

    @property
    def passed(self) -> tuple[TestResult, ...]:
        return tuple(r for r in self.results if r.outcome in ("passed", "xfailed", "xpassed"))

    @property
    def ok(self) -> bool:
        return (
            not self.problem
            and not self.timed_out
            and not self.collection_errors
            and not self.failed
            and bool(self.results)
        )


@dataclass(frozen=True)
class FileChange:
    path: str  # relative, forward slashes
    before: str
    after: str


@dataclass(frozen=True)
class Patch:
    changes: tuple[FileChange, ...]
    proposer: str = ""
    operator: str = ""
    summary: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(c.path for c in self.changes)

    def key(self) -> tuple[tuple[str, str], ...]:
        """Identity of the resulting sources: two patches with one key are the same candidate."""
        return tuple(sorted((c.path, c.after) for c in self.changes))


@dataclass(frozen=True)
class Suspect:
    path: str
    line: int
    score: float
    reason: str = ""
    passing: int = 0  # passing tests that ran this line (from the spectrum): what a change here may disturb


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    code: str
    message: str
    severity: str = "warning"  # error blocks a candidate; warning and info are reported
    column: int = 0  # 0-based, in characters; line is 1-based
    end_line: int = 0  # 0 when unknown: the finding covers `line`
    end_column: int = 0


@dataclass(frozen=True)
class Verdict:
    ok: bool
    findings: tuple[Finding, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class Reflection:
    signature: str
    root_cause: str = ""
    location: str = ""
    strategy: str = ""
    confidence: float = 0.0


@dataclass(frozen=True)
class Lesson:
    """What memory knows about a similar past failure."""

    signature: str
    summary: str
    fix_diff: str = ""
    operator: str = ""
    proposer: str = ""
    similarity: float = 0.0
    outcome: str = ""  # fixed | failed
    # Adapter detail a proposer may use (memory replay: the fixed statement's tokens before/after).
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EntityWarning:
    """A function whose history is worth a warning, placed on its name."""

    entity: str  # module::Class.func
    line: int  # 1-based line of the name
    column: int  # 0-based characters
    end_column: int
    message: str  # e.g. "the tests of `apply_discount` failed 3 times in the last 30 days; 2 fixes here were rejected"


@dataclass(frozen=True)
class PatternHit:
    """A statement whose abstract shape was the faulty statement of past fixed failures
    (memory's pattern fingerprints; the language server shows them as diagnostics)."""

    path: str
    line: int  # 1-based
    column: int  # 0-based character column of the statement's first token
    end_line: int  # 1-based
    end_column: int  # 0-based, exclusive
    shape: str
    count: int  # how many fixed failures had this faulty shape (rejected fixes not counted)
    fix_summary: str  # what fixed it, e.g. "if q > LIMIT: -> if q >= LIMIT:"
    fix_id: str
    # The past fix transferred to this statement (memory/pastfix.py): lines [line, end_line] as they were
    # scanned (`before`) and with the fix (`after`, None when it does not transfer: `problem` says why).
    before: str = ""
    after: str | None = None
    diff: str = ""  # the transferred fix as a unified diff of this file; without one, the past fix as it was made
    problem: str = ""


@dataclass(frozen=True)
class Attempt:
    index: int
    patch: Patch
    status: str  # rejected | unsafe | failed | plausible | fixed | error
    verdict: Verdict | None = None
    report: TestReport | None = None
    reflection: Reflection | None = None
    duration: float = 0.0
    note: str = ""


@dataclass(frozen=True)
class Usage:
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.llm_calls + other.llm_calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True)
class Outcome:
    status: Status
    run_id: str
    message: str = ""
    patch: Patch | None = None
    attempts: tuple[Attempt, ...] = ()
    baseline: TestReport | None = None
    iterations: int = 0
    candidates_evaluated: int = 0
    test_runs: int = 0
    plausible: int = 0
    usage: Usage = Usage()
    durations: Mapping[str, float] = field(default_factory=dict)
    flaky: tuple[str, ...] = ()
    # The setting whose limit ended the run (max_candidates, wall_seconds, max_iterations, max_tokens,
    # max_cost_usd, breaker_repeats); "" when no limit did: what the end message tells the user to raise.
    stopped_by: str = ""
    # A fix of some of the failing tests: the others, which never run the code it changes and fail as before.
    still_failing: tuple[str, ...] = ()


@dataclass(frozen=True)
class Event:
    # started baseline retrieved localized candidate checked confirming tested reflected breaker finished note
    kind: str
    run_id: str
    time: float
    phase: str = ""
    candidate: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


ACCEPT, PREFER, REJECT = "accept", "prefer", "reject"  # a reviewer's verdicts (core/review.py)


@dataclass(frozen=True)
class Review:
    verdict: str  # ACCEPT | PREFER | REJECT
    reason: str
    by: str  # "offline", or the model that reviewed
    prefer: int = 0  # with PREFER: the candidate number of the fix to offer instead


Numbered = tuple[int, Patch]  # (candidate number in the run, the fix)


HIGH, MEDIUM, LOW = "high", "medium", "low"  # an audit finding's severity; a high one blocks `--yes`


@dataclass(frozen=True)
class AuditFinding:
    severity: str  # HIGH | MEDIUM | LOW
    path: str
    line: int  # 1-based; 0 when the finding is about the whole change
    message: str
    source: str  # "rules", "bandit", or the model that found it


@dataclass(frozen=True)
class Audit:
    """The security pass on the fix to be offered: what the rules, bandit and (with a model) the auditor found."""

    by: str  # "offline", or the model that audited
    findings: tuple[AuditFinding, ...] = ()
    note: str = ""  # why a model audit is missing, when it is
    usage: Usage = field(default_factory=Usage)

    @property
    def blocking(self) -> bool:
        return any(f.severity == HIGH for f in self.findings)


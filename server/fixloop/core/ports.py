"""The loop's ports: every side effect sits behind one of these small protocols."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from fixloop.core.model import (
    Attempt,
    Audit,
    Lesson,
    Numbered,
    Outcome,
    Patch,
    PatternHit,
    Reflection,
    Review,
    Suspect,
    TestReport,
    Usage,
    Verdict,
)


@dataclass
class ProposalContext:
    """What a proposer may look at. `attempts` grows while the proposer is being iterated,
    so an adaptive proposer sees every earlier failure before it yields its next patch."""

    sources: Mapping[str, str]  # relative path -> text, project Python files as the run started
    baseline: TestReport
    target_tests: tuple[str, ...]
    suspects: tuple[Suspect, ...] = ()
    lessons: tuple[Lesson, ...] = ()
    attempts: list[Attempt] = field(default_factory=list)
    priors: Mapping[str, float] = field(default_factory=dict)
    workspace: Path | None = None  # the scratch copy, read-only for proposers
    is_test_file: Callable[[str], bool] = lambda path: False


class Proposer(Protocol):
    name: str
    # An adaptive proposer reads feedback (the LLM); the identical-failure breaker watches it.
    adaptive: bool

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]: ...


@runtime_checkable
class Noting(Protocol):
    """A proposer or memory with messages the run should show once (e.g. "no API key", "the shared memory
    is out of reach"). The loop turns each into a "note" event and clears the list."""

    notes: list[str]


@runtime_checkable
class Reflector(Protocol):
    def reflect(self, attempt: Attempt, ctx: ProposalContext) -> Reflection | None: ...


@runtime_checkable
class CallLogging(Protocol):
    """A proposer that calls a model hands over one record per call since the last drain (model, tokens
    in/out/cache, $, seconds, tool calls); the loop logs each as a "model_call" event."""

    def drain_calls(self) -> list[dict[str, object]]: ...


@runtime_checkable
class Metered(Protocol):
    """A port that spends tokens (the LLM proposer) reports what it spent so far."""

    def usage(self) -> Usage: ...


class TestRunner(Protocol):
    __test__ = False

    @property
    def root(self) -> Path | None:
        """The scratch copy the tests run in (proposers may read it), or None when there is no copy."""

    def sources(self) -> Mapping[str, str]: ...

    def run(
        self,
        patch: Patch | None,
        select: Sequence[str] = (),
        fail_fast: bool = False,
    ) -> TestReport: ...


@runtime_checkable
class Prefetching(Protocol):
    """A runner with spare lanes may start screening a checked candidate before the loop asks for it."""

    def lanes(self) -> int: ...

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None: ...


@runtime_checkable
class Covering(Protocol):
    """A runner that recorded which lines each test ran: the tests that run the code a patch changes, or
    None when it cannot tell (then the whole selection screens the candidate)."""

    def covering(self, patch: Patch) -> frozenset[str] | None: ...


@runtime_checkable
class Apart(Protocol):
    """A runner that recorded which lines each test ran: which of `tests` never run the code a patch changes.
    Such a test runs the same code with the patch as without it, so its outcome cannot change."""

    def apart(self, patch: Patch, tests: Sequence[str]) -> frozenset[str]: ...

    def lines_of(self, test: str) -> frozenset[tuple[str, int]] | None:
        """The (path, line)s of project code `test` ran, or None when they were not recorded."""


@runtime_checkable
class Paired(Protocol):
    """A runner that can run a selection with a patch and without it at the same time (two processes): the
    whole suite that confirms a fix of a narrowed run, before and after, in about one suite's time."""

    def run_pair(self, patch: Patch, select: Sequence[str]) -> tuple[TestReport, TestReport]: ...


class Localizer(Protocol):
    # True when `localize` runs the tests (it counts as a test run).
    runs_tests: bool
    # What the last `localize` found worth saying (e.g. a test that depends on another); "" when nothing.
    note: str

    def localize(
        self, report: TestReport, sources: Mapping[str, str], target_tests: Sequence[str]
    ) -> tuple[Suspect, ...]: ...


class SafetyCheck(Protocol):
    def check(self, patch: Patch) -> Verdict: ...


# A memory's priors under this prefix are an exploration draw for the search, not the order of its operators.
EXPLORE_PREFIX = "explore:"


class Memory(Protocol):
    def recall(self, report: TestReport, sources: Mapping[str, str]) -> tuple[Lesson, ...]: ...

    def priors(self, report: TestReport) -> Mapping[str, float]: ...

    def record_attempt(self, run_id: str, attempt: Attempt, ctx: ProposalContext) -> None: ...

    def record_outcome(self, outcome: Outcome, ctx: ProposalContext | None) -> None: ...


class ReviewMemory(Protocol):
    """What the language server asks of memory outside a run (`wiring.make_review_memory`, `lsp/providers.py`)."""

    def record_decision(self, run_id: str, hunk_id: str, accepted: bool, patch: Patch | None = None) -> None: ...

    def patterns_in(self, path: str, source: str) -> list[PatternHit]: ...

    def forget(self, row_id: str) -> int: ...

    @property
    def problem(self) -> str:
        """Why the memory cannot be read or was moved aside ("" when it works): the editor says so."""


class Reviewer(Protocol):
    def review(self, winner: Numbered, plausible: Sequence[Numbered], ctx: ProposalContext) -> Review: ...


Calls = Mapping[tuple[str, str, int], str]  # (test, function, its n-th call in the test) -> its value's digest


class BehaviourProbe(Protocol):
    """What the functions `of` changes return in the passing tests that run them, with `patch` applied (None:
    the code as it is); None when that cannot be known (the offline reviewer's evidence)."""

    def values(self, patch: Patch | None, of: Patch) -> Calls | None: ...


class Auditor(Protocol):
    """The security pass on the fix a run found, before it is offered (`audit.enabled`)."""

    def audit(self, patch: Patch, report: TestReport | None) -> Audit: ...


@dataclass(frozen=True)
class Ports:
    runner: TestRunner
    proposers: Sequence[Proposer]
    localizer: Localizer | None = None
    safety: SafetyCheck | None = None
    memory: Memory | None = None
    is_test_file: Callable[[str], bool] = lambda path: False
    cancelled: Callable[[], bool] = lambda: False
    now: Callable[[], float] = lambda: 0.0
    reviewer: Reviewer | None = None  # its word on the fix before it is offered (core/review.py)

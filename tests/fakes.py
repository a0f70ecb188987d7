"""The tests' fakes, one per role: a scripted proposer and a scripted test runner.

They stand in for the model (or the mutation engine) and for sandboxed pytest where a test is about the
loop's decisions, not about what a real run does; the real runner has its own tests (tests/runner) and
every behaviour that needs a real run keeps one end-to-end test of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence, Union

from fixloop.core.model import FileChange, Patch, TestReport, TestResult
from fixloop.core.ports import ProposalContext

# A candidate's edit: the new text of the proposer's `path`, new texts by path, or a function of the
# sources the loop shows the proposer that returns new texts by path.
Edit = Union[str, Mapping[str, str], Callable[[Mapping[str, str]], Mapping[str, str]]]


@dataclass(frozen=True)
class Candidate:
    """An edit with the operator and summary its patch reports."""

    edit: Edit
    operator: str = ""
    summary: str = ""


class ScriptedProposer:
    """Yields its candidates in order (a `Candidate`, or a bare `Edit`) as patches against the sources the
    loop passes in; `seen_attempts` records how many attempts the loop had shown it before each one."""

    def __init__(self, candidates: Iterable[Candidate | Edit], *, path: str = "m.py", name: str = "scripted",
                 adaptive: bool = False) -> None:
        self.candidates = list(candidates)
        self.path, self.name, self.adaptive = path, name, adaptive
        self.seen_attempts: list[int] = []

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        for i, candidate in enumerate(self.candidates):
            self.seen_attempts.append(len(ctx.attempts))
            if not isinstance(candidate, Candidate):
                candidate = Candidate(candidate)
            texts = self.texts(candidate.edit, ctx.sources)
            changes = tuple(FileChange(p, ctx.sources[p], after) for p, after in texts.items())
            yield Patch(changes, self.name, candidate.operator or f"op{i}", candidate.summary or f"try {i}")

    def texts(self, edit: Edit, sources: Mapping[str, str]) -> Mapping[str, str]:
        if isinstance(edit, str):
            return {self.path: edit}
        if callable(edit):
            return edit(sources)
        return edit


class Call(NamedTuple):
    """One run the loop asked the runner for."""

    patch: Patch | None
    select: tuple[str, ...]
    fail_fast: bool

    @property
    def after(self) -> str | None:
        """The new text of the patch's first file (None for an unpatched run)."""
        return self.patch.changes[0].after if self.patch else None


# What a run reports, given the sources it ran on (the patch applied) and the runs so far.
RunVerdict = Callable[[Mapping[str, str], Sequence[Call]], "TestReport | Sequence[TestResult]"]


class ScriptedRunner:
    """A test runner without processes or files: `verdict` decides each run's results from the
    sources it would have run on. `calls` records every run."""

    root = None  # no scratch copy: nothing on disk

    def __init__(self, sources: Mapping[str, str], verdict: RunVerdict) -> None:
        self._sources = dict(sources)
        self.verdict = verdict
        self.calls: list[Call] = []

    def sources(self) -> dict[str, str]:
        return dict(self._sources)

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        self.calls.append(Call(patch, tuple(select), fail_fast))
        current = dict(self._sources, **{c.path: c.after for c in (patch.changes if patch else ())})
        got = self.verdict(current, self.calls)
        return got if isinstance(got, TestReport) else TestReport(tuple(got))

    @property
    def screened(self) -> list[str | None]:
        """The candidates' texts that got a screening run (fail-fast, on the failing tests)."""
        return [c.after for c in self.calls if c.patch is not None and c.fail_fast]

"""The loop with a scripted proposer and an in-memory runner: no processes, no files."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Mapping, Sequence

from fixloop.core.integrity import is_test_file
from fixloop.core.loop import drive, run
from fixloop.core.model import FileChange, Frame, Limits, Patch, Status, Task, TestResult, Usage, Verdict
from fixloop.core.ports import Ports, ProposalContext
from tests.fakes import Call, RunVerdict, ScriptedProposer, ScriptedRunner

SOURCE = "def double(x):\n    return x + x + 1\n"
GOOD = "def double(x):\n    return x + x\n"


def double_verdict(flaky_once: bool = False) -> RunVerdict:
    """'Tests' are predicates on the source text of m.py (`flaky_once`: everything passes after the first run)."""

    def verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> list[TestResult]:
        ok = ("x + x\n" in sources["m.py"] and "+ 1" not in sources["m.py"]) or (flaky_once and len(calls) > 1)
        result = TestResult("tests/test_m.py::test_double", "passed" if ok else "failed",
                            exc_type="" if ok else "AssertionError", message="" if ok else "assert 5 == 4",
                            frames=(Frame("tests/test_m.py", 3, "test_double"),))
        return [result, TestResult("tests/test_m.py::test_other", "passed")]

    return verdict


def double_runner(sources: Mapping[str, str], flaky_once: bool = False) -> ScriptedRunner:
    return ScriptedRunner(sources, double_verdict(flaky_once))



class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.01
        return self.t


def _run(proposers: list, limits: Limits = Limits(), runner: ScriptedRunner | None = None, **kw: object):
    runner = runner or double_runner({"m.py": SOURCE, "tests/test_m.py": "..."})
    ports = Ports(runner=runner, proposers=proposers, is_test_file=is_test_file, now=Clock(), **kw)  # type: ignore[arg-type]
    events = []
    outcome = drive(run(Task(Path("/ws"), limits=limits), ports, "r1"), events.append)
    return outcome, events, runner


def test_fix_found_after_failures_and_events_in_order() -> None:
    proposer = ScriptedProposer(["def double(x):\n    return x * x + 1\n", GOOD])
    outcome, events, runner = _run([proposer])
    assert outcome.status is Status.FIXED
    assert outcome.patch is not None and outcome.patch.changes[0].after == GOOD
    assert outcome.candidates_evaluated == 2
    kinds = [e.kind for e in events]
    assert kinds[:3] == ["started", "baseline", "localized"]
    assert "reflected" in kinds and kinds[-1] == "finished"
    # The proposer saw the first failure before yielding its second patch.
    assert proposer.seen_attempts == [0, 1]
    # Failing tests first with -x, then the whole suite.
    assert runner.calls[-2][1] == ("tests/test_m.py::test_double",) and runner.calls[-2][2] is True
    assert runner.calls[-1][1] == ()


def test_nothing_to_fix_when_all_pass() -> None:
    runner = double_runner({"m.py": GOOD})
    outcome, _, _ = _run([ScriptedProposer([GOOD])], runner=runner)
    assert outcome.status is Status.NOTHING_TO_FIX


def test_flaky_failure_is_reported_not_fixed() -> None:
    runner = double_runner({"m.py": SOURCE}, flaky_once=True)
    outcome, _, _ = _run([ScriptedProposer([GOOD])], runner=runner)
    assert outcome.status is Status.FLAKY
    assert outcome.flaky == ("tests/test_m.py::test_double",)


def test_duplicates_are_skipped_and_candidate_limit_holds() -> None:
    bad = ["def double(x):\n    return 0\n"] * 3 + [f"def double(x):\n    return {i}\n" for i in range(10)]
    outcome, _, _ = _run([ScriptedProposer(bad)], limits=Limits(max_candidates=4))
    assert outcome.status is Status.LIMITS
    assert outcome.candidates_evaluated == 4
    assert "candidate limit" in outcome.message


def test_breaker_stops_an_adaptive_proposer_repeating_one_failure() -> None:
    repeats = [f"def double(x):\n    return x + x + {i}\n" for i in range(2, 10)]
    outcome, events, _ = _run([ScriptedProposer(repeats, adaptive=True)], limits=Limits(breaker_repeats=3))
    assert outcome.status is Status.GAVE_UP
    assert outcome.candidates_evaluated == 3
    assert any(e.kind == "breaker" for e in events)
    assert "3 times in a row" in outcome.message


def test_breaker_ignores_enumerating_proposers() -> None:
    tries = [f"def double(x):\n    return x + x + {i}\n" for i in range(2, 6)] + [GOOD]
    outcome, _, _ = _run([ScriptedProposer(tries)], limits=Limits(breaker_repeats=2))
    assert outcome.status is Status.FIXED


def test_integrity_guard_rejects_test_edits_and_skip_markers() -> None:
    cheat = ScriptedProposer([{"tests/test_m.py": "pass"}, "import pytest\npytest.skip('x')\n" + SOURCE], name="cheat")
    outcome, events, runner = _run([cheat])
    assert outcome.status is Status.GAVE_UP
    assert [a.status for a in outcome.attempts] == ["rejected", "rejected"]
    assert len(runner.calls) == 2  # baseline and the flakiness rerun only: no candidate ran


def test_unsafe_candidates_never_run() -> None:
    class Deny:
        def check(self, patch: Patch) -> Verdict:
            return Verdict(False, reason="adds os.system")

    outcome, _, runner = _run([ScriptedProposer([GOOD])], safety=Deny())
    assert outcome.status is Status.GAVE_UP
    assert outcome.attempts[0].status == "unsafe"
    assert len(runner.calls) == 2


def test_cancellation_is_checked_between_candidates() -> None:
    flag = {"stop": False}

    class StopAfterOne(ScriptedProposer):
        def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
            for patch in super().propose(ctx):
                yield patch
                flag["stop"] = True

    outcome, _, _ = _run([StopAfterOne(["def double(x):\n    return 1\n", GOOD])], cancelled=lambda: flag["stop"])
    assert outcome.status is Status.CANCELLED
    assert outcome.candidates_evaluated == 1


def test_token_budget_stops_a_metered_proposer() -> None:
    class Spender(ScriptedProposer):
        def __init__(self) -> None:
            super().__init__([f"def double(x):\n    return {i}\n" for i in range(5)], adaptive=True)
            self.spent = 0

        def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
            for patch in super().propose(ctx):
                self.spent += 600
                yield patch

        def usage(self) -> Usage:
            return Usage(llm_calls=self.spent // 600, input_tokens=self.spent)

    outcome, _, _ = _run([Spender()], limits=Limits(max_tokens=1000, breaker_repeats=10))
    assert outcome.status is Status.LIMITS
    assert "token budget" in outcome.message
    assert outcome.usage.input_tokens == 1200


class NoteLocalizer:
    """A localizer that costs no test run and says `note` about what it found."""

    runs_tests = False

    def __init__(self, note: str) -> None:
        self.note = note

    def localize(self, report: object, sources: object, target_tests: object) -> tuple:
        return ()


class Giving(ScriptedProposer):
    """Tries its patches, then leaves a note (as a model does when it stops early)."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__(texts)
        self.notes: list[str] = []

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        yield from super().propose(ctx)
        self.notes.append("the model stopped")


def test_a_proposers_note_is_an_event_never_the_localizers_note() -> None:
    bad = ["def double(x):\n    return 0\n"]
    outcome, events, _ = _run([Giving(bad)], localizer=NoteLocalizer(""))
    assert outcome.status is Status.GAVE_UP
    assert outcome.message == "no candidate made the failing tests pass (1 tried)"
    assert [e.data["message"] for e in events if e.kind == "note"] == ["the model stopped"]
    outcome, _, _ = _run([Giving(bad)], localizer=NoteLocalizer("test_b needs test_a first"))
    assert outcome.message == "no candidate made the failing tests pass (1 tried); test_b needs test_a first"


class WithMeta:
    """Yields (source, meta) pairs as patches: the meta is what the offline engine attaches."""

    name, adaptive = "mutation", False

    def __init__(self, items: list[tuple[str, dict[str, object]]]) -> None:
        self.items = items

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        for i, (text, meta) in enumerate(self.items):
            yield Patch((FileChange("m.py", ctx.sources["m.py"], text),), self.name, f"op{i}", f"try {i}", meta)


SAME_SIZE = "def double(x):\n    return  x + x\n"  # as small as GOOD: one line changed
BIGGER = "def double(x):\n    return x + x\n# doubled\n"  # passes too, with a line more


def test_overfitting_guard_prefers_a_fix_the_passing_tests_do_not_run_among_equally_small_ones() -> None:
    outcome, _, _ = _run([WithMeta([(SAME_SIZE, {"exposure": 5}), (GOOD, {"exposure": 0})])])
    assert outcome.patch is not None and outcome.patch.changes[0].after == GOOD
    assert outcome.plausible == 2
    # found first with no exposure: an equally small one that passing tests run is not even tried
    outcome, _, _ = _run([WithMeta([(GOOD, {"exposure": 0}), (SAME_SIZE, {"exposure": 5})])])
    assert outcome.patch is not None and outcome.patch.changes[0].after == GOOD and outcome.candidates_evaluated == 1


def test_overfitting_guard_still_ranks_the_smallest_first() -> None:
    outcome, _, _ = _run([WithMeta([(BIGGER, {"exposure": 0}), (GOOD, {"exposure": 9})])])
    assert outcome.patch is not None and outcome.patch.changes[0].after == GOOD
    outcome, _, _ = _run([WithMeta([(GOOD, {"exposure": 9}), (BIGGER, {"exposure": 0})])])
    assert outcome.patch is not None and outcome.patch.changes[0].after == GOOD and outcome.candidates_evaluated == 1


class PrefetchingRunner(ScriptedRunner):
    """A runner with two spare lanes that records what the loop reads ahead for it."""

    def __init__(self) -> None:
        super().__init__({"m.py": SOURCE, "tests/test_m.py": "..."}, double_verdict())
        self.prefetched: list[str] = []

    def lanes(self) -> int:
        return 2

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        self.prefetched.append(patch.changes[0].after)


def test_after_a_fix_only_a_smaller_candidate_is_read_ahead() -> None:
    """Reading ahead screens on spare lanes; once a fix is found, an equally small candidate the passing
    tests run more is never tested, so it is not screened ahead either. A smaller one still is."""
    same = [(f"def double(x):\n    return x + x  # {i}\n", {"exposure": 5}) for i in range(5)]
    runner = PrefetchingRunner()
    outcome, _, _ = _run([WithMeta([(GOOD, {"exposure": 3}), *same, (SAME_SIZE, {"exposure": 0})])], runner=runner)
    assert outcome.patch is not None and outcome.patch.changes[0].after == SAME_SIZE
    # the window (lanes + 1) was read before the first fix; after it only the smaller fix
    assert runner.prefetched == [GOOD, same[0][0], same[1][0], SAME_SIZE]


def test_many_failures_of_one_bug_are_rerun_a_sample_at_a_time() -> None:
    def verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> list[TestResult]:
        ok = "+ 1" not in sources["m.py"]
        return [TestResult(f"tests/test_m.py::test_{i}", "passed" if ok else "failed", exc_type="" if ok else
                           "AssertionError") for i in range(40)]

    runner = ScriptedRunner({"m.py": SOURCE}, verdict)
    outcome, _, _ = _run([ScriptedProposer([GOOD])], runner=runner)
    assert outcome.status is Status.FIXED
    rerun = runner.calls[1]  # the baseline, then the flakiness check
    assert rerun.patch is None and rerun.select == tuple(f"tests/test_m.py::test_{i}" for i in range(10))

"""A failing test that never runs the code a candidate changes cannot be fixed by it: such a test (one that
fails for another reason, often the machine's) no longer blocks the fix of the others. The loop with a
scripted runner that knows which function each test runs; no processes, no files."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from fixloop.core.integrity import is_test_file
from fixloop.core.loop import drive, run
from fixloop.core.model import Event, Outcome, Patch, Status, Suspect, Task, TestReport, TestResult
from fixloop.core.ports import Ports
from tests.fakes import Call, ScriptedProposer, ScriptedRunner

SOURCE = 'def inc(x):\n    return x - 1\n\n\ndef machine():\n    return "elsewhere"\n'
FIXES_INC = SOURCE.replace("x - 1", "x + 1")
FIXES_BOTH = FIXES_INC.replace('"elsewhere"', '"here"')
INC_TESTS = ("t.py::test_inc", "t.py::test_inc_type")
ENV_TEST = "e.py::test_machine"
TESTS = (ENV_TEST, *INC_TESTS)


def useless(k: int) -> str:
    return SOURCE.replace("x - 1", f"x - 1 + 0 * {k}")


def _body(text: str, name: str) -> str:
    return text.split(f"def {name}(")[1].split("\n\n")[0]


def verdict(sources: Mapping[str, str], calls: Sequence[Call], env_test: str = ENV_TEST) -> TestReport:
    """inc(1) == 2; inc returns an int; machine() == "here" (never on this machine, unless a patch says so)."""
    text = sources["m.py"]
    outcome = {"t.py::test_inc": "x + 1\n" in text, "t.py::test_inc_type": True, env_test: '"here"' in text}
    select = calls[-1].select
    return TestReport(tuple(TestResult(t, "passed" if outcome[t] else "failed", 0.1)
                            for t in (env_test, *INC_TESTS) if not select or t in select))


class SeeingRunner(ScriptedRunner):
    """Recorded which function each test runs: the machine test runs `machine`, the others `inc`; `shared`:
    a line every test ran (a helper both call)."""

    shared: frozenset[tuple[str, int]] = frozenset()

    def lines_of(self, test: str) -> frozenset[tuple[str, int]] | None:
        return frozenset({("m.py", 6) if "machine" in test else ("m.py", 2)}) | self.shared

    def apart(self, patch: Patch, tests: Sequence[str]) -> frozenset[str]:
        change = patch.changes[0]
        same = {name: _body(change.before, name) == _body(change.after, name) for name in ("inc", "machine")}
        return frozenset(t for t in tests if same["machine" if "machine" in t else "inc"])


@dataclass
class Suspects:
    """Ranks the lines it is given, best first."""

    lines: tuple[tuple[str, int], ...]
    runs_tests: bool = False
    note: str = ""

    def localize(self, report: TestReport, sources: Mapping[str, str], targets: Sequence[str]) -> tuple[Suspect, ...]:
        return tuple(Suspect(path, line, 1.0 - n / 10) for n, (path, line) in enumerate(self.lines))


class Clock:
    """One tick each time the loop looks, and BASELINE ticks for the first run: the run's time is its steps."""

    BASELINE = 50

    def __init__(self, runner: ScriptedRunner) -> None:
        self.ticks = itertools.count()
        self.runner = runner
        self.lag = 0

    def __call__(self) -> float:
        if self.runner.calls and not self.lag:
            self.lag = self.BASELINE
        return float(next(self.ticks) + self.lag)


def _fix(candidates: list[str], runner: ScriptedRunner,
         suspects: tuple[tuple[str, int], ...] = (("m.py", 2), ("m.py", 6))) -> tuple[Outcome, list[Event]]:
    ports = Ports(runner=runner, proposers=[ScriptedProposer(candidates)], is_test_file=is_test_file,
                  now=Clock(runner), localizer=Suspects(suspects))
    events: list[Event] = []
    return drive(run(Task(Path("/ws")), ports, "r1"), events.append), events


def test_a_fix_of_the_tests_that_run_the_change_is_offered_when_another_test_fails_apart() -> None:
    runner = SeeingRunner({"m.py": SOURCE}, verdict)
    outcome, events = _fix([useless(1), FIXES_INC], runner)
    assert outcome.status is Status.FIXED and outcome.patch is not None
    assert outcome.patch.changes[0].after == FIXES_INC
    assert outcome.still_failing == (ENV_TEST,)
    assert "fixes 1 of the 2 failing tests" in outcome.message and ENV_TEST in outcome.message
    # The machine's test never ran for a candidate: it cannot change with one.
    screened = [c.select for c in runner.calls if c.patch is not None and c.fail_fast]
    assert screened == [("t.py::test_inc",), ("t.py::test_inc",)]
    # The whole suite confirmed it: the machine's test fails as before, nothing else broke.
    assert [c.select for c in runner.calls if c.patch is not None and not c.fail_fast] == [()]
    assert [e.data["status"] for e in events if e.kind == "tested"] == ["failed", "partial"]  # said so in the log
    assert [e.data["verdict"] for e in events if e.kind == "reviewed"] in ([], ["accept"])


def test_a_fix_of_every_failing_test_found_soon_after_is_offered_instead() -> None:
    outcome, _ = _fix([FIXES_INC, FIXES_BOTH], SeeingRunner({"m.py": SOURCE}, verdict))
    assert outcome.status is Status.FIXED and outcome.patch is not None
    assert outcome.patch.changes[0].after == FIXES_BOTH
    assert outcome.still_failing == () and "failing tests" not in outcome.message


def test_after_a_partial_fix_the_search_goes_on_on_top_of_it_until_its_time_is_spent() -> None:
    runner = SeeingRunner({"m.py": SOURCE}, verdict)
    later = [useless(k) for k in range(2, 100)]
    outcome, events = _fix([useless(1), FIXES_INC, *later, FIXES_BOTH], runner)
    assert outcome.status is Status.FIXED and outcome.patch is not None
    assert outcome.patch.changes[0].after == FIXES_INC and outcome.still_failing == (ENV_TEST,)
    assert 3 <= outcome.candidates_evaluated < 60  # the search's time ended it, well before candidate 101
    notes = [e.data["message"] for e in events if e.kind == "note"]
    assert any(n.startswith("building on candidate 2, a fix of some failing targets") for n in notes)


OTHER = SOURCE + "\n\ndef double(x):\n    return x * 3\n"
FIXES_DOUBLE = OTHER.replace("x * 3", "x * 2")


def two_faults(sources: Mapping[str, str], calls: Sequence[Call]) -> TestReport:
    text = sources["m.py"]
    outcome = {"t.py::test_inc": "x + 1\n" in text, "d.py::test_double": "x * 2\n" in text}
    select = calls[-1].select
    return TestReport(tuple(TestResult(t, "passed" if ok else "failed", 0.1) for t, ok in outcome.items()
                            if not select or t in select))


class TwoFunctions(ScriptedRunner):
    def lines_of(self, test: str) -> frozenset[tuple[str, int]] | None:
        return frozenset({("m.py", 10) if "double" in test else ("m.py", 2)})

    def apart(self, patch: Patch, tests: Sequence[str]) -> frozenset[str]:
        change = patch.changes[0]
        same = {name: _body(change.before, name) == _body(change.after, name) for name in ("inc", "double")}
        return frozenset(t for t in tests if same["double" if "double" in t else "inc"])


def test_two_faults_fixed_apart_are_offered_as_one_fix() -> None:
    """Each candidate fixes one of two unrelated faults: the second round starts with both together."""
    runner = TwoFunctions({"m.py": OTHER}, two_faults)
    outcome, events = _fix([OTHER.replace("x - 1", "x + 1"), FIXES_DOUBLE], runner, (("m.py", 2), ("m.py", 10)))
    assert outcome.status is Status.FIXED and outcome.patch is not None and outcome.still_failing == ()
    assert outcome.patch.changes[0].after == FIXES_DOUBLE.replace("x - 1", "x + 1")
    assert outcome.candidates_evaluated == 3  # the two, then the two together
    assert [e.data["status"] for e in events if e.kind == "tested"] == ["partial", "partial", "plausible"]


def test_without_knowing_which_tests_run_the_change_every_failing_test_must_pass() -> None:
    runner = ScriptedRunner({"m.py": SOURCE}, verdict)
    outcome, _ = _fix([FIXES_INC], runner)
    assert outcome.status is not Status.FIXED and outcome.patch is None and outcome.still_failing == ()


def test_a_failing_test_that_fails_the_same_way_as_the_fixed_ones_is_not_set_apart() -> None:
    """Failing in the same way (here: the same test file, no traceback), it is taken for the same fault seen
    from another test: a candidate must make it pass too."""
    runner = SeeingRunner({"m.py": SOURCE}, lambda sources, calls: verdict(sources, calls, "t.py::test_machine"))
    outcome, _ = _fix([FIXES_INC], runner)
    assert outcome.status is not Status.FIXED and outcome.patch is None
    assert [c.select for c in runner.calls if c.patch is not None] == [("t.py::test_machine", "t.py::test_inc")]


def test_failing_tests_that_ran_one_top_suspect_line_are_one_fault_however_they_fail() -> None:
    """The machine's test and the others fail in different ways, but both ran a line the spectrum ranks among
    the first: one fault seen from two sides, so a fix must make every one of them pass."""
    runner = SeeingRunner({"m.py": SOURCE}, verdict)
    runner.shared = frozenset({("m.py", 9)})
    outcome, _ = _fix([FIXES_INC], runner, suspects=(("m.py", 9), ("m.py", 2), ("m.py", 6)))
    assert outcome.status is not Status.FIXED and outcome.patch is None
    # A line both ran that ranks below the first ten joins nothing.
    runner = SeeingRunner({"m.py": SOURCE}, verdict)
    runner.shared = frozenset({("m.py", 9)})
    low = tuple(("n.py", n) for n in range(10))
    outcome, _ = _fix([FIXES_INC], runner, suspects=(*low, ("m.py", 9)))
    assert outcome.status is Status.FIXED and outcome.still_failing == (ENV_TEST,)


class ReadingAheadRunner(SeeingRunner):
    """Has a spare lane: the loop hands it candidates to screen ahead."""

    def __init__(self, sources: Mapping[str, str], judge: object) -> None:
        super().__init__(sources, judge)  # type: ignore[arg-type]
        self.ahead: list[tuple[str, ...]] = []

    def lanes(self) -> int:
        return 2

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        self.ahead.append(tuple(select))


def test_a_candidate_read_ahead_is_screened_on_the_tests_the_loop_will_ask_for() -> None:
    runner = ReadingAheadRunner({"m.py": SOURCE}, verdict)
    outcome, _ = _fix([useless(1), FIXES_INC], runner)
    assert outcome.still_failing == (ENV_TEST,)
    screened = [c.select for c in runner.calls if c.patch is not None and c.fail_fast]
    assert runner.ahead and set(runner.ahead) == set(screened) == {("t.py::test_inc",)}

"""Which tests judge a candidate: on a long suite the tests that run the change come before the whole
selection (the loop with a scripted runner that knows its tests' lines; no processes, no files)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import pytest

from fixloop.core.integrity import is_test_file
from fixloop.core.loop import drive, run
from fixloop.core.model import Event, Limits, Patch, Scope, Status, Task, TestReport, TestResult
from fixloop.core.ports import Ports
from fixloop.core.selection import focus, narrowing
from tests.fakes import Call, ScriptedProposer, ScriptedRunner

SOURCE = "def inc(x):\n    return x - 1\n\n\ndef dec(x):\n    return x - 1\n"
FIXED = SOURCE.replace("return x - 1", "return x + 1", 1)
BREAKS_DEC = SOURCE.replace("return x - 1\n\n", "return x + 1\n\n").replace("    return x - 1\n", "    return 0\n")
TESTS = ("t.py::test_inc", "t.py::test_inc_type", "t.py::test_dec", "t.py::test_slow_1", "t.py::test_slow_2")


def verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> TestReport:
    """inc(1) == 2; inc returns an int; dec(1) == 0; the slow tests always pass. In the baseline each test took
    8 s (40 s in all)."""
    text = sources["m.py"]
    outcome = {"t.py::test_inc": "return x + 1\n\n" in text, "t.py::test_inc_type": True,
               "t.py::test_dec": text.endswith("return x - 1\n"), "t.py::test_slow_1": True, "t.py::test_slow_2": True}
    select = calls[-1].select
    chosen = [t for t in TESTS if not select or t in select]
    first = len(calls) == 1
    results = tuple(TestResult(t, "passed" if outcome[t] else "failed", 8.0 if first else 0.2) for t in chosen)
    return TestReport(results, duration=45.0 if first else 1.0)


class CoveringRunner(ScriptedRunner):
    """Knows which tests ran which function: inc is run by two tests, dec by one, the slow tests by neither."""

    def __init__(self) -> None:
        super().__init__({"m.py": SOURCE}, verdict)
        self.notes: list[str] = ["2 test(s) ran past the baseline's hang probe ... slow, not stuck"]
        self.asked: list[Patch] = []

    def covering(self, patch: Patch) -> frozenset[str] | None:
        self.asked.append(patch)
        after = patch.changes[0].after
        tests = {"t.py::test_inc", "t.py::test_inc_type"}
        return frozenset(tests | ({"t.py::test_dec"} if not after.endswith("return x - 1\n") else set()))


def _run(limits: Limits, candidates: list[str]) -> tuple[Status, list[Event], CoveringRunner]:
    runner = CoveringRunner()
    ports = Ports(runner=runner, proposers=[ScriptedProposer(candidates)], is_test_file=is_test_file)
    events: list[Event] = []
    outcome = drive(run(Task(Path("/ws"), limits=limits), ports, "r1"), events.append)
    return outcome.status, events, runner


def test_a_long_suite_screens_on_the_covering_tests_and_the_whole_suite_confirms() -> None:
    status, events, runner = _run(Limits(select_covering_after=30.0), [BREAKS_DEC, FIXED])
    assert status is Status.FIXED
    screened = [(c.select, c.fail_fast) for c in runner.calls if c.patch is not None]
    assert screened == [
        (("t.py::test_inc",), True),  # the candidate that breaks dec: the failing test passes...
        (("t.py::test_dec", "t.py::test_inc_type"), True),  # ...but a covering test fails: no full run
        (("t.py::test_inc",), True),  # the fix
        (("t.py::test_inc_type",), True),
        ((), False),  # the whole suite confirms it
    ]
    tested = [e.data["runs"] for e in events if e.kind == "tested"]
    assert [[r["selection"] for r in runs] for runs in tested] == [["targets", "covering"],
                                                                   ["targets", "covering", "full"]]
    assert tested[1][1] == {"selection": "covering", "asked": 1, "tests": ["t.py::test_inc_type"], "ran": 1,
                            "seconds": 1.0}
    assert tested[1][2]["ran"] == 5
    notes = [e for e in events if e.kind == "note" and e.phase == "baseline"]
    assert "slow, not stuck" in str(notes[0].data["message"])  # the runner's note, said once
    assert notes[1].data["selection"] == "covering" and "tests took 40 s" in str(notes[1].data["message"])


def test_a_short_suite_goes_from_the_failing_tests_to_the_whole_suite() -> None:
    status, events, runner = _run(Limits(select_covering_after=41.0), [FIXED])  # 40 s: not long enough
    assert status is Status.FIXED
    assert [(c.select, c.fail_fast) for c in runner.calls if c.patch is not None] == [
        (("t.py::test_inc",), True), ((), False)]
    assert runner.asked == []
    assert [r["selection"] for e in events if e.kind == "tested" for r in e.data["runs"]] == ["targets", "full"]
    assert not any(e.data.get("selection") for e in events if e.kind == "note")


def test_a_suites_length_is_what_its_tests_took_not_the_time_spent_stopping_a_hung_one() -> None:
    runner = CoveringRunner()
    quick = tuple(TestResult(t, "passed", 0.1, seconds=0.2) for t in TESTS[1:])
    hung = TestResult("t.py::test_inc", "failed", 30.0, "Timeout", seconds=30.0)
    baseline = TestReport((hung, *quick), duration=45.0)
    assert narrowing(runner, baseline, ("t.py::test_inc",), Limits(select_covering_after=10.0)) == (False, "")
    slow = TestReport((hung, *(TestResult(r.nodeid, "passed", 3.0) for r in quick)), duration=45.0)
    narrow, note = narrowing(runner, slow, ("t.py::test_inc",), Limits(select_covering_after=10.0))
    assert narrow and "tests took 12 s" in note
    assert narrowing(runner, slow, (), Limits(select_covering_after=10.0)) == (False, "")  # nothing to screen for
    assert narrowing(ScriptedRunner({}, verdict), slow, ("t.py::test_inc",),
                     Limits(select_covering_after=10.0)) == (False, "")


def test_by_default_even_a_short_suite_screens_on_the_covering_tests_and_says_nothing_of_it() -> None:
    """A warm screen of the tests beside the change costs a fraction of a cold run of a whole suite of
    seconds: a candidate that passes the failing test and breaks its neighbour is caught there."""
    quick = TestReport(tuple(TestResult(t, "passed", 0.1) for t in TESTS[1:]), duration=1.0)
    assert narrowing(CoveringRunner(), quick, ("t.py::test_inc",), Limits()) == (True, "")
    status, events, runner = _run(Limits(), [BREAKS_DEC, FIXED])
    assert status is Status.FIXED
    assert [[r["selection"] for r in e.data["runs"]] for e in events if e.kind == "tested"] == [
        ["targets", "covering"], ["targets", "covering", "full"]]


def test_the_spectrum_records_the_failing_tests_and_the_passing_tests_beside_them() -> None:
    results = [TestResult("tests/test_a.py::test_ok", "passed", duration=0.3),
               TestResult("tests/test_a.py::test_bad", "failed", duration=0.1),
               TestResult("tests/test_b.py::test_other", "passed", duration=0.3),
               TestResult("tests/test_a.py::test_ok2", "passed", duration=0.3)]
    baseline = TestReport(tuple(results))
    chosen = focus(baseline, frozenset({"tests/test_a.py::test_bad"}))
    # the failing test last: a lazy set-up runs in whichever test comes first, and must not look like its own
    assert chosen == ("tests/test_a.py::test_ok", "tests/test_a.py::test_ok2", "tests/test_a.py::test_bad")


def test_the_spectrum_of_a_long_test_file_stops_at_its_share_of_the_suite() -> None:
    failing = [TestResult(f"tests/test_a.py::test_bad{i}", "failed", duration=1.0) for i in range(3)]
    passing = [TestResult(f"tests/test_a.py::test_{i}", "passed", duration=1.0) for i in range(37)]
    baseline = TestReport((*failing, *passing))
    chosen = focus(baseline, frozenset(r.nodeid for r in failing))
    # 40 s of tests: the spectrum's may take a quarter of that, failing tests chosen first, run last
    assert chosen == (*(f"tests/test_a.py::test_{i}" for i in range(7)),
                      "tests/test_a.py::test_bad0", "tests/test_a.py::test_bad1", "tests/test_a.py::test_bad2")
    many = TestReport(tuple(TestResult(f"tests/test_a.py::test_bad{i}", "failed", duration=5.0) for i in range(9)))
    assert focus(many, frozenset(r.nodeid for r in many.results)) == ("tests/test_a.py::test_bad0",
                                                                       "tests/test_a.py::test_bad1")


def test_the_spectrum_takes_the_passing_tests_nearest_to_the_failing_one_first() -> None:
    """Of a long test file, the same test with other parameters and the tests of the same class run the
    failing test's code with other inputs: they are recorded before the rest of the file."""
    far = [TestResult(f"tests/test_a.py::OtherTests::test_{i}", "passed", duration=0.5) for i in range(20)]
    results = [*far,
               TestResult("tests/test_a.py::test_free", "passed", duration=0.5),
               TestResult("tests/test_a.py::PadTests::test_short", "passed", duration=0.5),
               TestResult("tests/test_a.py::PadTests::test_long[1]", "passed", duration=0.5),
               TestResult("tests/test_a.py::PadTests::test_long[2]", "failed", duration=0.5)]
    chosen = focus(TestReport(tuple(results)), frozenset({"tests/test_a.py::PadTests::test_long[2]"}))
    assert chosen[:2] == ("tests/test_a.py::PadTests::test_long[1]", "tests/test_a.py::PadTests::test_short")
    # 12 s of tests, a quarter of it recorded: the two nearest, then the file in its order
    assert chosen[2:] == (*(f"tests/test_a.py::OtherTests::test_{i}" for i in range(3)),
                          "tests/test_a.py::PadTests::test_long[2]")


def test_the_spectrum_of_a_suite_of_seconds_records_about_a_second_of_tests() -> None:
    """Traced tests run two to three times slower: on a 4-second suite the spectrum records about one
    second of them (the failing test and its nearest neighbours), not half the suite."""
    passing = [TestResult(f"tests/test_a.py::test_{i}", "passed", duration=0.25) for i in range(15)]
    baseline = TestReport((*passing, TestResult("tests/test_a.py::test_bad", "failed", duration=0.25)))
    chosen = focus(baseline, frozenset({"tests/test_a.py::test_bad"}))
    assert chosen == (*(f"tests/test_a.py::test_{i}" for i in range(3)), "tests/test_a.py::test_bad")


def test_the_spectrum_budget_counts_pytest_time_that_no_test_reports() -> None:
    """600 tests of a millisecond in a 3.6-second run: pytest's own 5 ms a test is most of what each one
    costs, and the spectrum's budget of a second holds about 170 of them, not all of the file."""
    passing = [TestResult(f"tests/test_a.py::test_{i}", "passed", duration=0.001) for i in range(599)]
    results = (*passing, TestResult("tests/test_a.py::test_bad", "failed", duration=0.001))
    chosen = focus(TestReport(results, duration=3.6), frozenset({"tests/test_a.py::test_bad"}))
    assert 160 <= len(chosen) <= 170
    assert len(focus(TestReport(results), frozenset({"tests/test_a.py::test_bad"}))) == 600  # no run time known


def test_many_failing_tests_leave_half_the_spectrum_to_the_passing_ones_beside_them() -> None:
    failing = [TestResult(f"tests/test_a.py::test_bad{i}", "failed", duration=0.02) for i in range(60)]
    passing = [TestResult(f"tests/test_a.py::test_ok{i}", "passed", duration=0.01) for i in range(400)]
    chosen = focus(TestReport((*failing, *passing)), frozenset(r.nodeid for r in failing))
    # 5.2 s of tests, a quarter recorded: the first failing test, 31 more in half of what is left, 65 passing
    # tests in the rest (all sixty failing tests first left room for 9)
    assert sum(t.startswith("tests/test_a.py::test_bad") for t in chosen) == 32
    assert sum(t.startswith("tests/test_a.py::test_ok") for t in chosen) == 65


class PairedRunner(CoveringRunner):
    """Runs the suite with a fix and without it in one call (the real runner: two processes at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[Patch] = []

    def run_pair(self, patch: Patch, select: Sequence[str]) -> tuple[TestReport, TestReport]:
        self.pairs.append(patch)
        return self.run(None, select), self.run(patch, select)


@pytest.mark.parametrize("paired", [False, True])
def test_a_run_narrowed_to_one_test_offers_no_fix_that_breaks_the_rest_of_the_suite(paired: bool) -> None:
    runner = PairedRunner() if paired else CoveringRunner()
    ports = Ports(runner=runner, proposers=[ScriptedProposer([BREAKS_DEC, FIXED])], is_test_file=is_test_file)
    events: list[Event] = []
    task = Task(Path("/ws"), Scope("node", "t.py::test_inc"))
    outcome = drive(run(task, ports, "r1"), events.append)
    assert outcome.status is Status.FIXED and outcome.patch is not None
    assert outcome.patch.changes[0].after == FIXED  # not the candidate that breaks dec outside the selection
    assert [e.data["status"] for e in events if e.kind == "tested"] == ["failed", "plausible"]
    tested = [[r["selection"] for r in e.data["runs"]] for e in events if e.kind == "tested"]
    # The unpatched suite runs once, for the first candidate that passes the selection.
    assert tested == [["targets", "full", "suite unpatched", "suite"], ["targets", "full", "suite"]], tested
    unpatched = [c for c in runner.calls if c.patch is None and c.select == ()]
    assert len(unpatched) == 1
    if isinstance(runner, PairedRunner):  # before and after at once, for the first candidate only
        assert [p.changes[0].after for p in runner.pairs] == [BREAKS_DEC]


def test_a_test_too_dear_for_the_spectrum_is_passed_over_not_the_end_of_the_choice() -> None:
    """The second failing test imports numpy (0.8 s); the sixty after it take 10 ms each: they are recorded,
    not just the first failing test, whose every line would then look as suspect as the fault."""
    failing = [TestResult("tests/test_a.py::test_bad0", "failed", duration=0.01),
               TestResult("tests/test_a.py::test_numpy", "failed", duration=0.8),
               *(TestResult(f"tests/test_a.py::test_bad{i}", "failed", duration=0.01) for i in range(1, 60))]
    passing = [TestResult("tests/test_a.py::test_pandas", "passed", duration=0.9),
               *(TestResult(f"tests/test_a.py::test_ok{i}", "passed", duration=0.01) for i in range(100))]
    chosen = focus(TestReport((*failing, *passing)), frozenset(r.nodeid for r in failing))
    assert "tests/test_a.py::test_numpy" not in chosen and "tests/test_a.py::test_pandas" not in chosen
    # a second of tests: the first failing test, about half a second of the others, the rest passing ones
    assert 45 <= sum(t.startswith("tests/test_a.py::test_bad") for t in chosen) <= 50
    assert 45 <= sum(t.startswith("tests/test_a.py::test_ok") for t in chosen) <= 51

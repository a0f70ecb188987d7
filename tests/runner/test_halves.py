"""A fix's whole-suite run as two processes at once: how the suite splits, and when it runs in one again."""

from __future__ import annotations


from fixloop.core.model import FileChange, Limits, Patch, TestReport, TestResult
from fixloop.adapters.runner.halves import duplicated, halves, lost, merged
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.plain import PlainSandbox
from tests.conftest import PYTHON


def _report(*tests: tuple[str, float], duration: float = 0.0, **kw: object) -> TestReport:
    results = tuple(TestResult(nodeid, "passed", seconds) for nodeid, seconds in tests)
    return TestReport(results, duration=duration or sum(s for _, s in tests), **kw)  # type: ignore[arg-type]


def test_the_files_split_by_their_tests_time_heaviest_first() -> None:
    baseline = _report(("a.py::t1", 2.0), ("a.py::t2", 1.0), ("b.py::t", 2.5), ("c.py::t", 0.4), ("d.py::t", 0.2))
    # a (3.0) and b (2.5) go first, then c and d to the lighter group each time.
    assert halves(baseline) == (("a.py",), ("b.py", "c.py", "d.py"))


def test_a_suite_that_would_not_win_back_a_second_start_stays_whole() -> None:
    assert halves(_report(("a.py::t", 3.0), ("a.py::u", 3.0))) is None  # one file
    assert halves(_report(("a.py::t", 3.0), ("b.py::t", 0.1))) is None  # a light half
    many_small = [(f"b.py::t{i}", 0.0) for i in range(200)]
    # Two hundred tests of no time of their own still cost pytest a little each: that half is heavy enough.
    assert halves(_report(("a.py::t", 1.0), *many_small, duration=3.0)) == (("a.py",), ("b.py",))


def test_a_baseline_that_did_not_run_whole_never_splits() -> None:
    tests = (("a.py::t", 2.0), ("b.py::t", 2.0))
    assert halves(_report(*tests)) is not None
    assert halves(_report(*tests, collection_errors=("c.py",))) is None
    assert halves(_report(*tests, timed_out=True)) is None
    assert halves(_report(*tests, problem="no pytest")) is None


def test_two_reports_merge_into_the_whole_runs_report() -> None:
    ok = TestReport((TestResult("a.py::t", "passed"),), duration=2.0, cpu_seconds=1.5, peak_mb=40, output_tail="ok")
    bad = TestReport((TestResult("b.py::t", "failed", exc_type="AssertionError"),), returncode=1, duration=3.0,
                     cpu_seconds=2.0, peak_mb=60, output_tail="1 failed", harness=("src/p.py",))
    both = merged(ok, bad)
    assert [r.nodeid for r in both.results] == ["a.py::t", "b.py::t"]
    assert (both.returncode, both.duration, both.cpu_seconds, both.peak_mb) == (1, 3.0, 3.5, 60)
    assert both.output_tail == "1 failed" and both.harness == ("src/p.py",) and not both.ok
    assert merged(ok, ok).ok and merged(ok, TestReport(problem="could not start")).problem == "could not start"


def test_what_passed_before_and_not_now_is_lost_except_an_id_made_of_the_moment() -> None:
    now = TestReport((TestResult("a.py::t", "passed"), TestResult("b.py::t", "failed"),
                      TestResult("c.py::s[2]", "passed")))
    before = frozenset({"a.py::t", "b.py::t", "c.py::gone", "c.py::s[1]"})
    assert lost(now, before) == ("b.py::t", "c.py::gone")
    assert duplicated(now.results + now.results[:1]) and not duplicated(now.results)


SHARED = "seen = []\n"
FIRST = "import time\nimport shared\n\n\ndef test_first():\n    time.sleep(0.6)\n    shared.seen.append(1)\n"
# Passes only after test_first ran in the same process: a suite whose files share state.
SECOND = "import time\nimport shared\n\n\ndef test_second():\n    time.sleep(0.6)\n    assert shared.seen\n"
ALONE = "import time\n\n\ndef test_alone():\n    time.sleep(0.6)\n"
LIB = "def inc(x):\n    return x + 2\n"
LIB_TEST = "from lib import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"


def _runs_of_a_fix(runner: PytestRunner, patch: Patch) -> tuple[TestReport, int]:
    runs = runner.runs
    report = runner.run(patch)
    return report, runner.runs - runs


def test_a_fix_is_confirmed_by_two_processes_each_running_half_of_the_files(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_a.py": ALONE, "tests/test_b.py": ALONE.replace("alone", "b"),
                         "tests/test_lib.py": LIB_TEST})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(test_timeout=60), python=PYTHON, warm_workers=0)
    try:
        baseline = runner.run(None)
        assert [r.nodeid for r in baseline.failed] == ["tests/test_lib.py::test_inc"]
        fixed = Patch((FileChange("lib.py", LIB, LIB.replace("x + 2", "x + 1")),))
        report, runs = _runs_of_a_fix(runner, fixed)
        assert runs == 2 and report.ok and len(report.results) == 3 and not runner.notes
        broken = Patch((FileChange("lib.py", LIB, "def inc(x):\n    return x + 3\n"),))
        report, runs = _runs_of_a_fix(runner, broken)
        # Only a test that failed before fails: the halves' word stands, no run in one process.
        assert runs == 2 and [r.nodeid for r in report.failed] == ["tests/test_lib.py::test_inc"]
    finally:
        runner.close()


def test_a_suite_whose_files_share_state_runs_in_one_process_after_the_first_disagreement(make_project) -> None:
    root = make_project({"shared.py": SHARED, "lib.py": LIB, "tests/test_1.py": FIRST, "tests/test_2.py": SECOND,
                         "tests/test_lib.py": LIB_TEST})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(test_timeout=60), python=PYTHON, warm_workers=0)
    try:
        runner.run(None)
        fixed = Patch((FileChange("lib.py", LIB, LIB.replace("x + 2", "x + 1")),))
        report, runs = _runs_of_a_fix(runner, fixed)
        # Apart, test_second fails; the whole suite in one process passes it: its word is the run's.
        assert runs == 3 and report.ok and len(report.results) == 3
        assert runner.notes and "tests/test_2.py::test_second passes when the whole suite runs in one" in runner.notes[-1]
        report, runs = _runs_of_a_fix(runner, fixed)
        assert runs == 1 and report.ok
    finally:
        runner.close()


def test_a_fix_that_breaks_a_test_is_judged_by_the_whole_suite_and_the_split_stays(make_project) -> None:
    lib = "def inc(x):\n    return x + 2\n\n\ndef one():\n    return 1\n"
    other = "import time\nfrom lib import one\n\n\ndef test_one():\n    time.sleep(0.6)\n    assert one() == 1\n"
    root = make_project({"lib.py": lib, "tests/test_a.py": ALONE, "tests/test_one.py": other,
                         "tests/test_lib.py": LIB_TEST})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(test_timeout=60), python=PYTHON, warm_workers=0)
    try:
        runner.run(None)
        breaks = Patch((FileChange("lib.py", lib, lib.replace("return 1", "return 2").replace("x + 2", "x + 1")),))
        report, runs = _runs_of_a_fix(runner, breaks)
        assert runs == 3 and [r.nodeid for r in report.failed] == ["tests/test_one.py::test_one"]
        assert not runner.notes  # the one process agreed: the split is still trusted
        fixed = Patch((FileChange("lib.py", lib, lib.replace("x + 2", "x + 1")),))
        assert _runs_of_a_fix(runner, fixed)[1] == 2
    finally:
        runner.close()

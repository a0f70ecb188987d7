"""The baseline's own rules on hand-made reports (pure): the value to set when it is cut, and the verdicts of
the tests judged again after they hit a limit in it."""

from __future__ import annotations

from fixloop.core.model import Frame, TestReport, TestResult
from fixloop.adapters.runner.baseline import cut_problem, nice, rejudged, settle


def _hung(nodeid: str, where: str, cpu: bool = True) -> TestResult:
    message = "the test used more than 1 s of CPU: it probably loops forever" if cpu else "the test did not finish in 30 s"
    frames = (Frame("tests/t.py", 3, nodeid.split("::")[-1]), Frame("lib.py", 7, where))
    return TestResult(nodeid, "failed", 1.0, "Timeout", message, frames)


LOOP_A, LOOP_B = _hung("tests/t.py::test_a", "int_sqrt"), _hung("tests/t.py::test_b", "int_sqrt")
SLOW = _hung("tests/t.py::test_slow", "crunch")
PASSED = TestResult("tests/t.py::test_slow", "passed", 26.0, seconds=26.1)


def test_the_first_hang_of_a_run_had_the_whole_limit_and_a_later_one_where_it_was_stuck_hangs_too() -> None:
    stuck: set[tuple[str, str]] = set()
    asked = ["tests/t.py::test_a", "tests/t.py::test_b", "tests/t.py::test_slow"]
    verdicts, pending = settle(TestReport((LOOP_A, LOOP_B, SLOW)), asked, stuck)
    assert set(verdicts) == {"tests/t.py::test_a", "tests/t.py::test_b"} and stuck == {("lib.py", "int_sqrt")}
    assert pending == ["tests/t.py::test_slow"]  # stopped elsewhere on a shortened limit: it gets a run of its own
    verdicts, pending = settle(TestReport((PASSED,)), pending, stuck)
    assert verdicts == {"tests/t.py::test_slow": PASSED} and pending == []


def test_a_hang_at_the_wall_limit_had_the_whole_limit_and_a_pass_is_always_a_verdict() -> None:
    sleeping = _hung("tests/t.py::test_sleep", "wait", cpu=False)
    verdicts, pending = settle(TestReport((PASSED, LOOP_A, sleeping)),
                               ["tests/t.py::test_slow", "tests/t.py::test_a", "tests/t.py::test_sleep",
                                "tests/t.py::test_never"], set())
    assert set(verdicts) == {"tests/t.py::test_slow", "tests/t.py::test_a", "tests/t.py::test_sleep"}
    assert pending == ["tests/t.py::test_never"]  # the run ended before it: judged in the next one


def test_the_verdicts_replace_the_baselines_and_each_kind_is_named() -> None:
    quick = TestResult("tests/t.py::test_quick", "passed", 0.1)
    baseline = TestReport((quick, LOOP_A, SLOW), duration=10.0, cpu_seconds=5.0)
    again = (TestReport((LOOP_A, SLOW), duration=31.0, cpu_seconds=30.0), TestReport((PASSED,), duration=27.0))
    merged, notes = rejudged(baseline, {"tests/t.py::test_a": LOOP_A, "tests/t.py::test_slow": PASSED}, again, 30.0)
    assert merged.results == (quick, LOOP_A, PASSED) and merged.duration == 68.0 and merged.cpu_seconds == 35.0
    assert "slow, not stuck: tests/t.py::test_slow (26.1 s, passed)" in notes[0]
    assert "per_test_timeout = 30 s even alone" in notes[1] and "tests/t.py::test_a" in notes[1]
    assert "--per-test-timeout 120" in notes[1]


def test_the_value_to_set_comes_from_how_far_the_cut_baseline_got() -> None:
    said = cut_problem("baseline_timeout", 60, 60.0, collected=400, finished=100, wall_seconds=600)
    assert "after 100 of 400 tests" in said and "about 240 s" in said
    assert "--baseline-timeout 360 " in said  # 1.5 times the estimate, in whole minutes past five
    said = cut_problem("wall_seconds", 600, 600.0, collected=0, finished=10, wall_seconds=600)
    assert "wall_seconds = 600 s" in said and "--wall-seconds 3300 " in said  # never said how many: three times
    assert [nice(s) for s in (0.2, 7, 61, 299, 301)] == [5, 10, 70, 300, 360]

"""How long a test may run, learned from the tests that finish (pure: TestClock on hand-made reports)."""

from __future__ import annotations

import pytest

from fixloop.core.flaky import flaky_among
from fixloop.core.model import Patch, TestReport, TestResult
from fixloop.adapters.runner.test_clock import TestClock

HUNG = TestResult("t.py::test_loop", "failed", 3.0, "Timeout", "the test used more than 3 s of CPU")
FAST = TestResult("t.py::test_fast", "passed", 0.02)
SLOW = TestResult("t.py::test_slow", "failed", 0.4, "AssertionError")


def test_before_anything_finished_a_test_gets_the_probe_and_the_users_wall_limit() -> None:
    clock = TestClock(ceiling=30.0, probe=3.0)
    assert clock.limits(screening=False) == (30.0, 3.0)
    assert clock.limits(screening=True) == (1.0, 1.0)  # nothing known yet: the floor


def test_the_learned_limit_counts_only_tests_that_finished() -> None:
    clock = TestClock(ceiling=30.0)
    clock.observe(TestReport((FAST, SLOW, HUNG)))
    assert clock.finished_seconds == pytest.approx(0.42)  # the hung test's 3 s teach nothing
    assert clock.learned() == pytest.approx(10 * 0.42 + 0.5)
    assert clock.limits(screening=True) == pytest.approx((4.7, 4.7))
    assert clock.hung == {"t.py::test_loop"}


def test_a_slow_suite_raises_the_cpu_limit_above_the_probe_but_never_past_the_ceiling() -> None:
    clock = TestClock(ceiling=30.0, probe=3.0)
    clock.observe(TestReport((TestResult("t.py::test_big", "passed", 0.8),)))
    assert clock.limits(screening=False) == (30.0, 8.5)
    clock.observe(TestReport((TestResult("t.py::test_big", "passed", 9.0),)))
    assert clock.limits(screening=False) == (30.0, 30.0)
    assert clock.limits(screening=True) == (30.0, 30.0)


def test_the_slowest_unpatched_run_counts() -> None:
    clock = TestClock(ceiling=30.0)
    clock.observe(TestReport((FAST, SLOW)))
    clock.observe(TestReport((FAST,)))  # a re-run of a few tests teaches less, and is not the suite
    assert clock.finished_seconds == pytest.approx(0.42)


def test_no_per_test_limit_means_none_at_all() -> None:
    clock = TestClock(ceiling=0.0)
    clock.observe(TestReport((FAST,)))
    assert clock.limits(screening=False) == (0.0, 0.0)
    assert clock.limits(screening=True) == (0.0, 0.0)


def test_a_user_limit_below_the_probe_wins() -> None:
    assert TestClock(ceiling=2.0, probe=3.0).limits(screening=False) == (2.0, 2.0)


def test_known_hung_tests_go_last_in_a_selection_and_the_rest_keep_their_order() -> None:
    clock = TestClock(ceiling=30.0)
    clock.observe(TestReport((HUNG,)))
    assert clock.order(("t.py::test_loop", "t.py::b", "t.py::a")) == ("t.py::b", "t.py::a", "t.py::test_loop")


def test_a_hung_result_is_a_failed_timeout_only() -> None:
    assert HUNG.hung and not SLOW.hung
    assert not TestResult("t.py::x", "passed", exc_type="Timeout").hung


class Rerunner:
    """Answers each run from a table: node id -> outcome; records what it was asked to run."""

    def __init__(self, outcomes: dict[str, str]) -> None:
        self.outcomes = outcomes
        self.asked: list[tuple[str, ...]] = []


    def sources(self) -> dict[str, str]:
        return {}

    def run(self, patch: Patch | None, select: tuple[str, ...] = (), fail_fast: bool = False) -> TestReport:
        self.asked.append(tuple(select))
        chosen = select or tuple(self.outcomes)
        return TestReport(tuple(TestResult(n, self.outcomes[n]) for n in chosen))


def test_a_hung_test_is_never_rerun_for_flakiness() -> None:
    runner = Rerunner({"t.py::test_loop": "passed"})
    baseline = TestReport((HUNG,))
    assert flaky_among(runner, (), baseline, ("t.py::test_loop",), lambda: False) == ((), 0)
    assert runner.asked == []


def test_only_the_failing_tests_run_again_when_they_fail_again() -> None:
    runner = Rerunner({"t.py::test_fast": "passed", "t.py::test_slow": "failed"})
    flaky = flaky_among(runner, (), TestReport((FAST, SLOW)), ("t.py::test_slow",), lambda: False)
    assert flaky == ((), 1) and runner.asked == [("t.py::test_slow",)]


def test_a_test_that_passes_alone_is_flaky_only_if_it_passes_in_the_whole_selection_too() -> None:
    runs: list[dict[str, str]] = [{"t.py::test_slow": "passed"},
                                  {"t.py::test_fast": "passed", "t.py::test_slow": "failed"}]

    class OrderDependent(Rerunner):
        def run(self, patch: Patch | None, select: tuple[str, ...] = (), fail_fast: bool = False) -> TestReport:
            self.outcomes = runs[len(self.asked)]
            return super().run(patch, select, fail_fast)

    order = OrderDependent({})
    assert flaky_among(order, (), TestReport((FAST, SLOW)), ("t.py::test_slow",), lambda: False) == ((), 2)
    assert order.asked == [("t.py::test_slow",), ()]
    really = Rerunner({"t.py::test_fast": "passed", "t.py::test_slow": "passed"})
    assert flaky_among(really, (), TestReport((FAST, SLOW)), ("t.py::test_slow",), lambda: False) == (
        ("t.py::test_slow",), 2)


def test_the_report_plugin_learns_as_the_host_does() -> None:
    """The plugin tightens the CPU limit after a hang in the same session by the clock's own rule."""
    from fixloop.adapters.runner import fixloop_report

    clock = TestClock(ceiling=30.0)
    assert (fixloop_report.CPU_FLOOR, fixloop_report.CPU_FACTOR) == (clock.floor, clock.factor)


def test_a_traced_run_gives_the_tracer_room_but_never_past_the_ceiling() -> None:
    clock = TestClock(ceiling=30.0, probe=2.0)
    assert clock.limits(screening=False, traced=True) == (30.0, 6.0)
    assert clock.limits(screening=True, traced=True) == (1.0, 3.0)
    assert TestClock(ceiling=4.0, probe=2.0).limits(screening=False, traced=True) == (4.0, 4.0)


# ---- each test's own limit ---------------------------------------------------------------------------------

BIG = TestResult("t.py::test_big", "passed", 26.0, seconds=26.2)
QUICK = TestResult("t.py::test_quick", "passed", 0.01, seconds=0.02)
BROKEN = TestResult("t.py::test_broken", "failed", 0.01, "AssertionError", seconds=0.02)
LONER = TestResult("u.py::test_alone", "failed", 0.01, "AssertionError", seconds=0.02)


def test_a_test_that_took_26_s_keeps_its_time_while_a_quick_one_gets_about_a_second() -> None:
    clock = TestClock(ceiling=300.0)
    clock.observe(TestReport((BIG, QUICK)))
    assert clock.limit("t.py::test_big") == pytest.approx(10 * 26.2 + 0.5 + 0.2)  # its fixtures' 0.2 s: the slack
    assert clock.limit("t.py::test_quick") == pytest.approx(1.0 + 0.2)
    assert TestClock(ceiling=30.0, own={"t.py::test_big": 26.2}).limit("t.py::test_big") == 30.0  # never past it


def test_a_failing_test_is_given_its_files_slowest_test_or_the_suites_time() -> None:
    """Its own time is that of a failure, which may end long before a working version would."""
    clock = TestClock(ceiling=300.0)
    clock.observe(TestReport((BIG, QUICK, BROKEN, LONER)))
    assert clock.limit("t.py::test_broken") == clock.limit("t.py::test_big")
    assert clock.limit("u.py::test_alone") == clock.learned()
    clock.observe(TestReport((HUNG,)))
    assert clock.limit("t.py::test_loop") == clock.limit("t.py::test_big")


def test_a_screening_run_names_each_selected_tests_limit_and_adds_them_up() -> None:
    clock = TestClock(ceiling=300.0)
    clock.observe(TestReport((BIG, QUICK, LONER)))
    screen = clock.screening(["t.py"])
    assert screen.per_test == {"t.py::test_big": clock.limit("t.py::test_big"),
                               "t.py::test_quick": clock.limit("t.py::test_quick")}
    assert screen.default == (clock.learned(), clock.learned())
    assert screen.budget == pytest.approx(sum(screen.per_test.values()) + 3.0)
    one = clock.screening(["t.py::test_quick", "t.py::test_new"])
    assert set(one.per_test) == {"t.py::test_quick"}
    assert one.budget == pytest.approx(clock.limit("t.py::test_quick") + clock.learned() + 3.0)
    assert TestClock(ceiling=0.0).screening(["t.py"]).per_test == {}


def test_the_baseline_judges_a_test_again_with_the_users_limit() -> None:
    assert TestClock(ceiling=30.0, probe=2.0).rejudging() == (30.0, 30.0)


def test_the_report_plugin_arms_each_test_with_its_own_limit() -> None:
    """The plugin reads the host's table of per-test limits; a test not named keeps the run's limits."""
    import importlib
    import os

    from fixloop.adapters.runner import fixloop_report

    os.environ["FIXLOOP_TEST_LIMITS"] = '{"t.py::a": 4.5, "t.py::bad": "x"}'
    assert fixloop_report._limits_by_test() == {}  # one bad value: the whole table is distrusted
    os.environ["FIXLOOP_TEST_LIMITS"] = '{"t.py::a": 4.5}'
    try:
        assert fixloop_report._limits_by_test() == {"t.py::a": 4.5}
        assert "FIXLOOP_TEST_LIMITS" not in os.environ  # never inherited by the tests' own processes
    finally:
        os.environ.pop("FIXLOOP_TEST_LIMITS", None)
        importlib.reload(fixloop_report)

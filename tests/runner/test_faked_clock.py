"""A test that fakes the clock (freezegun, time-machine) moves pytest's own times, not fixloop's."""

from __future__ import annotations

from fixloop.core.model import Limits, TestResult
from fixloop.core.selection import narrowing
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.plain import PlainSandbox
from tests.conftest import PYTHON

# What freezegun does to pytest: every module's reference to the clock is replaced while the test runs, so
# pytest's end of the call is read an hour later than its start.
TRAVELS = """import time

import _pytest.timing as timing


def test_an_hour_later(request):
    real = timing.perf_counter
    timing.perf_counter = lambda: real() + 3600.0
    request.addfinalizer(lambda: setattr(timing, "perf_counter", real))


def test_other():
    assert time.monotonic()
"""


def test_a_test_that_travels_in_time_took_what_it_really_took(make_project) -> None:
    root = make_project({"tests/test_clock.py": TRAVELS})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(test_timeout=60), python=PYTHON, warm_workers=0)
    try:
        baseline = runner.run(None)
        travelled = next(r for r in baseline.results if r.nodeid.endswith("test_an_hour_later"))
        assert travelled.outcome == "passed" and travelled.duration > 3000  # pytest's own time moved
        assert 0 < travelled.took < 60  # fixloop's did not
        # So the suite is not a long one, nor is each test's limit learned from an hour.
        assert narrowing(runner, baseline, ("tests/test_clock.py::test_other",), Limits(select_covering_after=0)) == (
            True, "")
        assert runner.screening_timeout() < 60
    finally:
        runner.close()


def test_a_result_without_fixloops_clock_took_pytests_time() -> None:
    assert TestResult("t", "passed", duration=0.5).took == 0.5
    assert TestResult("t", "passed", duration=3600.0, seconds=0.01).took == 0.01

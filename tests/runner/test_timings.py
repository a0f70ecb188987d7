"""Limits from the project's own timings, on real pytest: the baseline's cap, a second look at tests that hit a
limit in it, and each test's own screening limit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixloop.core.model import FileChange, Limits, Patch
from fixloop.runner.baseline import cut_problem, nice
from fixloop.runner.pytest_runner import PytestRunner
from fixloop.sandbox.plain import PlainSandbox
from tests.conftest import PYTHON

SLEEPS = {f"tests/test_sleep_{i}.py": f"import time\n\ndef test_sleep_{i}():\n    time.sleep(1)\n" for i in range(4)}
# Burns CPU for a set time, as a slow but correct computation does (the CPU probe sees it as a loop).
CRUNCH = ("import time\n\ndef crunch(seconds):\n    t0 = time.process_time()\n    n = 0\n"
          "    while time.process_time() - t0 < seconds:\n        n += 1\n    return n\n")


def _runner(root: Path, limits: Limits, warm_workers: int = 0) -> PytestRunner:
    return PytestRunner.open(root, PlainSandbox(), limits, python=PYTHON, warm_workers=warm_workers)


def test_a_baseline_cut_at_the_users_cap_stops_loudly_with_the_value_to_set(make_project) -> None:
    root = make_project(SLEEPS)
    runner = _runner(root, Limits(baseline_timeout=2, per_test_timeout=30))
    try:
        report = runner.run(None)
    finally:
        runner.close()
    assert report.timed_out and report.duration < 10
    assert "baseline was stopped at baseline_timeout = 2 s" in report.problem, report.problem
    assert "does not search" in report.problem
    asked = re.search(r"--baseline-timeout (\d+)", report.problem)
    assert asked is not None and int(asked.group(1)) >= 4  # the four sleeps need 4 s: enough in one try


@pytest.mark.e2e
def test_without_a_baseline_cap_a_baseline_longer_than_the_run_cap_completes(make_project) -> None:
    """`test_timeout` (formerly 120 s for every run, the baseline too) caps the later runs only."""
    root = make_project(SLEEPS)
    runner = _runner(root, Limits(test_timeout=2, per_test_timeout=30))
    try:
        baseline = runner.run(None)
        assert baseline.ok and len(baseline.passed) == 4 and baseline.duration > 2
        again = runner.run(None, ["tests/test_sleep_0.py", "tests/test_sleep_1.py", "tests/test_sleep_2.py"])
        assert again.timed_out  # a later run keeps the cap
    finally:
        runner.close()


@pytest.mark.e2e
def test_a_slow_correct_test_past_the_probe_is_judged_again_and_passes(make_project) -> None:
    root = make_project({"heavy.py": CRUNCH, "tests/test_heavy.py": "from heavy import crunch\n\n"
                         "def test_crunch():\n    assert crunch(3.5) > 0\n\ndef test_quick():\n    assert True\n"})
    # 1 s of CPU before anything is known, three times that under coverage: the 3.5 s test runs past it.
    runner = _runner(root, Limits(per_test_timeout=30, hang_probe_seconds=1.0))
    try:
        report = runner.run(None)
        assert report.ok, report.results
        assert not runner.clock.hung
        assert any("slow, not stuck" in note and "test_crunch" in note for note in runner.notes), runner.notes
        # Its own time teaches its own limit: ten times 3.5 s (at most the 30 s ceiling), not a fast test's second.
        assert runner.clock.limit("tests/test_heavy.py::test_crunch") >= 20
        assert runner.clock.limit("tests/test_heavy.py::test_quick") < 3
    finally:
        runner.close()


@pytest.mark.e2e
def test_a_candidate_that_hangs_a_fast_test_costs_about_a_second_beside_a_slow_test(make_project) -> None:
    """Screening limits are each test's own: the slow test's time does not lend the fast one a long limit."""
    lib = "def inc(x):\n    return x + 1\n"
    tests = ("import time\nfrom lib import inc\n\ndef test_inc():\n    assert inc(1) == 2\n\n"
             "def test_slow():\n    time.sleep(1.5)\n")
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests})
    runner = _runner(root, Limits(per_test_timeout=30), warm_workers=1)
    try:
        assert runner.run(None).ok
        hang = Patch((FileChange("lib.py", lib, "def inc(x):\n    while True:\n        x += 1\n"),))
        report = runner.run(hang, ["tests/test_lib.py::test_inc"], fail_fast=True)
        assert report.results[0].hung
        assert report.duration < 6  # the old shared limit was ten times the suite (15 s); this one is about 1 s
        fine = Patch((FileChange("lib.py", lib, "def inc(x):\n    return 1 + x\n"),))
        assert runner.run(fine, ["tests/test_lib.py::test_inc", "tests/test_lib.py::test_slow"], fail_fast=True).ok
    finally:
        runner.close()


def test_the_value_to_set_comes_from_how_far_the_cut_baseline_got() -> None:
    said = cut_problem("baseline_timeout", 60, 60.0, collected=400, finished=100, wall_seconds=600)
    assert "after 100 of 400 tests" in said and "about 240 s" in said
    assert "--baseline-timeout 360 " in said  # 1.5 times the estimate, in whole minutes past five
    said = cut_problem("wall_seconds", 600, 600.0, collected=0, finished=10, wall_seconds=600)
    assert "wall_seconds = 600 s" in said and "--wall-seconds 3300 " in said  # never said how many: three times
    assert [nice(s) for s in (0.2, 7, 61, 299, 301)] == [5, 10, 70, 300, 360]

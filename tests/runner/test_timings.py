"""Limits from the project's own timings, on real pytest: the baseline's cap, a second look at tests that hit a
limit in it, and each test's own screening limit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixloop.core.model import FileChange, Limits, Patch
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.plain import PlainSandbox
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



@pytest.mark.e2e
def test_a_loop_and_a_slow_test_in_one_baseline_cost_one_wait_and_the_slow_one_passes(make_project) -> None:
    """After the loop hangs, the plugin gives the next tests a short CPU limit: the slow test stopped that way
    elsewhere than the loop gets a run of its own; a second loop stopped in the same function does not."""
    lib = "def spin(n):\n    while n >= 0:\n        n = n * 1\n    return n\n"
    tests = ("from heavy import crunch\nfrom lib import spin\n\ndef test_loop():\n    assert spin(1) == 0\n\n"
             "def test_slow():\n    assert crunch(2.0) > 0\n\ndef test_loop_again():\n    assert spin(2) == 0\n")
    root = make_project({"heavy.py": CRUNCH, "lib.py": lib, "tests/test_mixed.py": tests})
    runner = _runner(root, Limits(per_test_timeout=12, hang_probe_seconds=1.0))
    try:
        report = runner.run(None)
        by_id = {r.nodeid: r for r in report.results}
        assert by_id["tests/test_mixed.py::test_slow"].outcome == "passed", by_id
        assert by_id["tests/test_mixed.py::test_loop"].hung and by_id["tests/test_mixed.py::test_loop_again"].hung
        assert runner.cold.runs == 3  # the baseline, the loops judged with one wait, the slow test alone
        again = by_id["tests/test_mixed.py::test_loop_again"].message
        assert "of CPU" in again and "12 s" not in again  # the short limit after the first loop: no second wait
    finally:
        runner.close()

"""Project files that pytest itself imports before any test (the project is pluggy, or a plugin pytest
loads first) are the harness: a change to them can change how results are reported, so a pass with such a
change counts only when pytest still reports the canary tests (runner/canary.py) as they must come out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.application.config import SandboxSettings
from fixloop.core.guard import rejection
from fixloop.core.model import FileChange, Limits, Patch, TestReport, TestResult
from fixloop.adapters.runner.canary import CANARY_PATH, EXPECTED, canary_problem, without_failure_path
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.runner.report import parse_report
from fixloop.adapters.sandbox.select import choose
from tests.conftest import PYTHON, fixloop_env

CORE = "def add(a, b):\n    return a - b\n\n\ndef keep_failures():\n    return True\n"
# The project's own plugin, loaded by its addopts before any test: it imports calc.core, and whether a
# failure stays a failure is up to calc.core, so a change there could turn every red test green.
PLUGIN = ("import pytest\n\nfrom calc.core import add, keep_failures\n\n\n"
          "@pytest.hookimpl(hookwrapper=True)\n"
          "def pytest_runtest_makereport(item, call):\n"
          "    outcome = yield\n"
          "    report = outcome.get_result()\n"
          "    if report.failed and not keep_failures():\n"
          "        report.outcome = 'passed'\n")


def _project(root: Path) -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text("")
    (root / "calc" / "core.py").write_text(CORE)
    (root / "calc" / "plugin.py").write_text(PLUGIN)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p calc.plugin\n")
    (root / "test_calc.py").write_text("from calc.core import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
                                       "def test_zero():\n    assert add(0, 0) == 0\n")
    return root


def _change(before: str, after: str) -> Patch:
    return Patch((FileChange("calc/core.py", CORE, CORE.replace(before, after)),), "test", "edit", before)


def test_the_report_carries_the_harness_files_and_the_guard_lets_the_runner_judge_a_change_to_them() -> None:
    lines = [json.dumps({"event": "harness", "files": ["src/calc/core.py", "src/calc/__init__.py"]}),
             json.dumps({"event": "end", "exitstatus": 0})]
    report = parse_report(lines, 0, 0.1, False, "")
    assert report.harness == ("src/calc/core.py", "src/calc/__init__.py")
    change = Patch((FileChange("src/calc/core.py", "x = 1\n", "x = 2\n"),), "mutation", "nudge", "1 -> 2")
    assert rejection(change, 1, lambda path: False) is None


def _canary(outcomes: dict[str, str], returncode: int = 1, prefix: str = "sub/.fixloop_canary/") -> TestReport:
    return TestReport(tuple(TestResult(f"{prefix}test_canary.py::{name}", outcome) for name, outcome in outcomes.items()),
                      returncode=returncode)


def test_the_canary_is_believed_only_when_every_test_comes_out_as_it_must() -> None:
    assert canary_problem(_canary(EXPECTED)) == ""
    assert canary_problem(_canary(EXPECTED, prefix="")) == ""  # the rootdir is the project's to choose
    swallowed = {**EXPECTED, "test_assert_fails": "passed"}
    assert "test_assert_fails passed (must be failed)" in canary_problem(_canary(swallowed))
    missing = {k: v for k, v in EXPECTED.items() if k != "test_raises"}
    assert "test_raises missing" in canary_problem(_canary(missing))
    assert "unexpected" in canary_problem(_canary({**EXPECTED, "test_more": "passed"}))
    assert "exit status 0" in canary_problem(_canary(EXPECTED, returncode=0))
    assert "cannot run" in canary_problem(TestReport(problem="pytest exited with code 4"))


def test_lines_pytest_runs_only_because_a_test_failed_are_no_evidence() -> None:
    hooks = "src/pluggy/_callers.py"
    canary = {f"{CANARY_PATH}::{name}": {hooks: frozenset({1, 2, 3} if outcome in ("failed", "error") else
                                                         {1, 2, 3, 4} if outcome == "skipped" else {1, 2, 5})}
              for name, outcome in EXPECTED.items()}
    spectra = {**canary, "testing/test_a.py::test_x": {hooks: frozenset({1, 3, 4, 9}), "src/b.py": frozenset({7})},
               "testing/test_a.py::test_y": {hooks: frozenset({2, 5})}}
    # 3 ran only in failing canary tests (1 and 2 also in passing ones; a skip is neither): gone, as are
    # the canary's own entries.
    assert without_failure_path(spectra) == {
        "testing/test_a.py::test_x": {hooks: frozenset({1, 4, 9}), "src/b.py": frozenset({7})},
        "testing/test_a.py::test_y": {hooks: frozenset({2, 5})}}
    assert without_failure_path({"t::a": {"f.py": frozenset({1})}}) == {"t::a": {"f.py": frozenset({1})}}


@pytest.mark.e2e
def test_a_change_that_makes_pytest_report_failures_as_passes_is_caught_by_the_canary(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    runner = PytestRunner.open(project, choose(SandboxSettings()), Limits(test_timeout=60), PYTHON)
    try:
        baseline = runner.run(None)
        assert "calc/core.py" in baseline.harness and [r.nodeid for r in baseline.failed] == ["test_calc.py::test_add"]
        runs = runner.runs
        forged = runner.run(_change("return True", "return False"), ["test_calc.py::test_add"])
        assert [r.outcome for r in forged.results] == ["passed"]  # what the changed plugin told pytest
        assert "alters how pytest reports results" in forged.problem and "test_assert_fails passed" in forged.problem
        assert not forged.ok and runner.runs == runs + 2  # the run and its canary
        fixed = runner.run(_change("a - b", "a + b"), ["test_calc.py::test_add"])
        assert fixed.ok, fixed.problem
        assert runner.run(_change("a - b", "a + b")).ok and runner.runs == runs + 5  # its canary is asked once
        elsewhere = runner.run(Patch((FileChange("notes.py", "", "x = 1\n"),), "test", "new", ""),
                               ["test_calc.py::test_zero"])
        assert elsewhere.ok and runner.runs == runs + 6  # no canary for a change outside the harness
    finally:
        runner.close()


@pytest.mark.e2e
def test_a_bug_in_code_a_plugin_loads_before_the_tests_is_fixed_with_the_canary(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    run = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--python", PYTHON, "--offline",
                          "--no-memory", "--dry-run", "--json", "--max-candidates", "30"],
                         capture_output=True, text=True, env=fixloop_env(), timeout=300, cwd=project)
    summary = json.loads(run.stdout)
    assert summary["status"] == "fixed", summary
    assert "return a + b" in summary["diff"]
    assert "pytest itself imports" in run.stderr


@pytest.mark.e2e
def test_a_planted_link_where_the_canary_goes_is_never_written_through(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".fixloop_canary").symlink_to(outside, target_is_directory=True)
    runner = PytestRunner.open(project, choose(SandboxSettings()), Limits(test_timeout=60), PYTHON)
    try:
        assert "calc/core.py" in runner.run(None).harness
        fixed = runner.run(_change("a - b", "a + b"), ["test_calc.py::test_add"])
        # Either the copy left the link out and the canary ran, or the write was refused and nothing passed.
        assert fixed.ok or fixed.problem, fixed
    finally:
        runner.close()
    assert list(outside.iterdir()) == []
    assert (project / ".fixloop_canary").is_symlink()

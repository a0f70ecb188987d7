"""A module the workspace has but the copy left out is named, with the setting that takes it in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.core.model import TestReport, TestResult
from fixloop.adapters.runner.listing import CopyRule, listing
from fixloop.adapters.runner.missing import explain, missing_modules
from tests.conftest import PYTHON, fixloop_env


def _project(root: Path) -> None:
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text("from ._version import __version__\n")
    (root / "calc" / "_version.py").write_text("__version__ = '1.0'\n")
    (root / "calc" / "core.py").write_text("def add(a, b):\n    return a - b\n")
    (root / ".gitignore").write_text("calc/_version.py\n")
    (root / "test_calc.py").write_text("from calc.core import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")


def test_only_a_module_the_workspace_has_and_the_copy_lacks_is_explained(tmp_path: Path) -> None:
    _project(tmp_path)
    report = TestReport(collection_errors=("ImportError while importing test module\n"
                                           "E   ModuleNotFoundError: No module named 'calc._version'",))
    assert missing_modules(report) == ["calc._version"]
    taken = listing(tmp_path)
    assert explain(tmp_path, taken, report) == ""  # the copy has it
    lacking = listing(tmp_path, CopyRule(ignored_total_mb=0))
    message = explain(tmp_path, lacking, report)
    assert "calc/_version.py" in message and "git ignores it" in message and "workspace.copy_include" in message
    typo = TestReport(results=(TestResult("t.py::t", "failed", message="No module named 'calc.nope'"),))
    assert explain(tmp_path, lacking, typo) == ""  # a real missing module is a bug to fix, not a copy problem


@pytest.mark.e2e
def test_the_run_stops_with_the_file_and_the_setting_then_the_setting_works(tmp_path: Path) -> None:
    project = tmp_path / "calc-project"
    _project(project)

    def fix(*extra: str) -> dict[str, object]:
        run = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--python", PYTHON, "--offline",
                              "--no-memory", "--dry-run", "--json", "--set", "workspace.ignored_total_mb=0", *extra],
                             capture_output=True, text=True, env=fixloop_env(), timeout=300)
        return json.loads(run.stdout)

    stopped = fix()
    assert stopped["status"] == "error" and "calc/_version.py" in str(stopped["message"])
    assert stopped["candidates_evaluated"] == 0
    fixed = fix("--set", 'workspace.copy_include=["calc/_version.py"]')
    assert fixed["status"] == "fixed", fixed

"""Project files that pytest itself imports before any test (the project is pluggy, or a plugin pytest
loads first) are the harness: a change to them can change how results are reported, so none is made."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.core.guard import rejection
from fixloop.core.model import FileChange, Patch
from fixloop.runner.report import parse_report
from tests.conftest import PYTHON, fixloop_env


def test_the_report_carries_the_harness_files_and_the_guard_refuses_a_change_to_them() -> None:
    lines = [json.dumps({"event": "harness", "files": ["src/calc/core.py", "src/calc/__init__.py"]}),
             json.dumps({"event": "end", "exitstatus": 0})]
    report = parse_report(lines, 0, 0.1, False, "")
    assert report.harness == ("src/calc/core.py", "src/calc/__init__.py")
    change = Patch((FileChange("src/calc/core.py", "x = 1\n", "x = 2\n"),), "mutation", "nudge", "1 -> 2")
    refused = rejection(change, 1, lambda path: False, report.harness)
    assert refused is not None and "pytest itself runs" in refused.note
    other = Patch((FileChange("src/calc/other.py", "x = 1\n", "x = 2\n"),), "mutation", "nudge", "1 -> 2")
    assert rejection(other, 2, lambda path: False, report.harness) is None


@pytest.mark.e2e
def test_a_bug_in_code_a_plugin_loads_before_the_tests_is_never_changed_and_the_end_says_why(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "calc").mkdir(parents=True)
    (project / "calc" / "__init__.py").write_text("")
    (project / "calc" / "core.py").write_text("def add(a, b):\n    return a - b\n")
    # The project's own pytest plugin, loaded by its addopts before any test: it imports calc.core.
    (project / "calc" / "plugin.py").write_text("from calc.core import add\n\n\ndef pytest_configure(config):\n"
                                                "    config.addinivalue_line('markers', 'calc: calc tests')\n")
    (project / "pytest.ini").write_text("[pytest]\naddopts = -p calc.plugin\n")
    (project / "test_calc.py").write_text("from calc.core import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    run = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--python", PYTHON, "--offline",
                          "--no-memory", "--dry-run", "--json", "--max-candidates", "30"],
                         capture_output=True, text=True, env=fixloop_env(PYTHONPATH=f"{fixloop_env()['PYTHONPATH']}"),
                         timeout=300, cwd=project)
    summary = json.loads(run.stdout)
    assert summary["status"] != "fixed", summary
    assert "pytest itself imports" in run.stderr
    assert any("pytest itself imports" in step for step in summary["next_steps"]), summary["next_steps"]

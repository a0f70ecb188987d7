"""End to end: `fixloop fix PATH --goal TEXT` as a user runs it, with the real sandbox and no model."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PYTHON, fixloop_env

pytestmark = pytest.mark.e2e  # whole goal runs through the CLI

MOD = '''def f(x):
    """Twice x, plus one.

    >>> f(3)
    7
    """
    return x * 2 - 1


def g(x):
    return x
'''


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "calc").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "calc" / "__init__.py").write_text("")
    (root / "calc" / "ops.py").write_text(MOD)
    (root / "tests" / "test_g.py").write_text("from calc.ops import g\n\n\ndef test_g():\n    assert g(1) == 1\n")
    return root


def digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


def fixloop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "fix", *args, "--python", PYTHON, "--no-memory",
                           "--offline"], capture_output=True, text=True, env=fixloop_env(), timeout=400,
                          stdin=subprocess.DEVNULL)


def test_goal_from_a_docstring_writes_the_failing_test_then_the_fix(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = fixloop(str(root), "--goal", "make f match its docstring", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["status"] == "fixed" and summary["applied"] is True
    assert summary["test_file"] == "tests/test_f_goal.py" and summary["test_origin"] == "docstring"
    assert summary["spec"]["where"] == "calc/ops.py::f" and summary["spec"]["expected"] == "f(3) == 7"
    assert "assert 5 == 7" in summary["spec"]["actual"]
    assert summary["files_changed"] == ["tests/test_f_goal.py", "calc/ops.py"]
    assert summary["diff"].startswith("--- /dev/null\n+++ b/tests/test_f_goal.py\n")
    assert summary["failing_before"] == ["tests/test_f_goal.py::test_f_goal"]
    test = (root / "tests" / "test_f_goal.py").read_text()
    assert "from calc.ops import f" in test and "assert f(3) == 7" in test
    assert "return x * 2 + 1" in (root / "calc" / "ops.py").read_text()
    # The run log keeps the goal, the spec and the test beside the fix.
    run_dir = Path(summary["run_dir"])
    assert json.loads((run_dir / "summary.json").read_text())["test_file"] == "tests/test_f_goal.py"
    assert (run_dir / "goal_test.py").read_text() == test
    # The new test passes on the fixed code, run here as a user would (plain pytest).
    check = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout


def test_goal_dry_run_and_the_refusals_write_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = digest(root)
    dry = fixloop(str(root), "--goal", "f(3) returns 5 instead of 7", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "reproduction test: tests/test_f_goal.py (from goal-text)" in dry.stderr
    assert "+++ b/tests/test_f_goal.py" in dry.stdout and "expected: f(3) == 7" in dry.stderr
    assert digest(root) == before

    passes = fixloop(str(root), "--goal", "g(2) should be 2", "--yes", "--json")
    assert passes.returncode == 1
    summary = json.loads(passes.stdout)
    assert summary["goal_problem"] == "test" and summary["status"] == "error"
    assert "the generated test passes on the current code: the described behaviour is already there?" \
        in summary["message"]

    for args, words in [(["--goal", ""], "the goal is empty"),
                        (["--goal", "h(1) should be 2"], "no function of that name"),
                        (["--goal", "the bug is in calc/nope.py"], "not a Python file of this project"),
                        (["--goal", "g is wrong"], "add an example to the goal"),
                        (["--goal", "f(3) should be 7", "--test", "tests/test_g.py"], "leave out --test")]:
        refused = fixloop(str(root), *args, "--yes")
        assert refused.returncode == (1 if words.startswith("add an") else 2), (args, refused.stderr)
        assert words in refused.stderr, refused.stderr
    assert digest(root) == before

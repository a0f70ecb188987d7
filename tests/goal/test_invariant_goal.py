"""End to end: a goal that states only an invariant ("cap(x) must never be more than 100") becomes a
failing Hypothesis property test in the real sandbox, then the fix, through the real CLI; the refusals
(no type hint, no Hypothesis in the project's interpreter) write nothing."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PYTHON, fixloop_env
from tests.project_python import project_python

pytestmark = pytest.mark.e2e  # whole goal runs through the CLI

PYTHON_H = project_python(("pytest", "hypothesis"))
MOD = '''def cap(x: int) -> int:
    """The score shown on the board."""
    if x > 100:
        return 101
    return x


def untyped(x):
    return x - 1
'''


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "board").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "board" / "__init__.py").write_text("")
    (root / "board" / "score.py").write_text(MOD)
    (root / "tests" / "test_score.py").write_text("from board.score import cap\n\n\ndef test_low():\n"
                                                  "    assert cap(7) == 7\n")
    return root


def digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


def fixloop(root: Path, python: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fixloop", "fix", str(root), *args, "--python", python,
                           "--no-memory", "--offline"], capture_output=True, text=True, env=fixloop_env(),
                          timeout=400, stdin=subprocess.DEVNULL)


def test_an_invariant_alone_gives_a_failing_property_test_then_the_fix(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = fixloop(root, PYTHON_H, "--goal", "cap(x) must never be more than 100", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["status"] == "fixed" and summary["applied"] is True, summary["message"]
    assert summary["test_file"] == "tests/test_cap_goal.py" and summary["test_origin"] == "goal-text-invariant"
    assert summary["spec"]["expected"] == "for every input: cap(x) <= 100"
    assert "cap(101) returned 101" in summary["spec"]["actual"]  # Hypothesis's smallest falsifying input
    assert summary["failing_before"] == ["tests/test_cap_goal.py::test_cap_goal_1"]
    test = (root / "tests" / "test_cap_goal.py").read_text()
    assert "@given(x=st.integers())" in test and "derandomize=True" in test and "assert result <= 100" in test
    fixed = (root / "board" / "score.py").read_text()
    assert "return 101" not in fixed
    check = subprocess.run([PYTHON_H, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout


def test_an_invariant_without_hints_or_without_hypothesis_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = digest(root)
    untyped = fixloop(root, PYTHON_H, "--goal", "untyped(x) must never be negative", "--yes")
    assert untyped.returncode == 1, untyped.stderr
    assert "no property test can be written" in untyped.stderr
    assert "parameter `x` of untyped has no type hint" in untyped.stderr and "add an example" in untyped.stderr

    no_hypothesis = fixloop(root, PYTHON, "--goal", "cap(x) must never be more than 100", "--yes", "--json")
    assert no_hypothesis.returncode == 1
    summary = json.loads(no_hypothesis.stdout)
    assert summary["goal_problem"] == "test"
    assert "needs Hypothesis, which the project's interpreter does not have: install it there" in summary["message"]
    assert digest(root) == before

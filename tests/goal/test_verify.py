"""The reproduction test's verification: it must fail on the current code on an assertion about the
behaviour. The refusals, judged on real pytest runs in the real sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixloop.application.config import SandboxSettings
from fixloop.core.model import Frame, Limits, TestReport, TestResult
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.select import choose
from fixloop.application.testgen.verify import PASSES, judge, verify
from tests.conftest import PYTHON

T = "tests/test_f_goal.py"


def result(outcome: str, exc: str = "", message: str = "", where: str = T) -> TestResult:
    return TestResult(f"{T}::test_f_goal", outcome, exc_type=exc, message=message, frames=(Frame(where, 3, "x"),))


@pytest.mark.parametrize("res, ok, words", [
    (result("failed", "AssertionError", "assert 3 == 4"), True, "assert 3 == 4"),
    (result("failed", "ZeroDivisionError", "division by zero", "pkg/mod.py"), True, "division by zero"),
    (result("failed", "Failed", "DID NOT RAISE <class 'ValueError'>"), True, "DID NOT RAISE"),
    (result("passed"), False, PASSES),
    (result("failed", "ModuleNotFoundError", "No module named 'pkg'"), False, "wrong reason: ModuleNotFoundError"),
    (result("failed", "NameError", "name 'g' is not defined"), False, "wrong reason: NameError in the test itself"),
    (result("failed", "TypeError", "f() takes 1 positional argument"), False, "TypeError in the test itself"),
    (result("error", "RuntimeError", "boom"), False, "while setting the test up (a fixture?)"),
    (result("failed", "AssertionError", "x", "pkg/mod.py"), False, "raised inside pkg/mod.py:3"),
])
def test_judge(res: TestResult, ok: bool, words: str) -> None:
    got = judge(TestReport((res,)), [res.nodeid], T)
    assert got.ok is ok and words in (got.observed if ok else got.message)


def test_judge_run_level_problems() -> None:
    node = f"{T}::test_f_goal"
    assert "could not run" in judge(TestReport(problem="no pytest"), [node], T).message
    assert "SyntaxError" in judge(TestReport(collection_errors=("E   SyntaxError: invalid",)), [node], T).message
    assert "collected none" in judge(TestReport((TestResult("other::t", "failed"),)), [node], T).message


CASES = {
    "assertion": "from pkg.mod import f\n\n\ndef test_f_goal():\n    assert f(3) == 4\n",
    "passes": "from pkg.mod import f\n\n\ndef test_f_goal():\n    assert f(3) == 3\n",
    "import": "from pkg.nothere import f\n\n\ndef test_f_goal():\n    assert f(3) == 4\n",
    "syntax": "from pkg.mod import f\n\n\ndef test_f_goal(:\n    assert f(3) == 4\n",
    "name": "def test_f_goal():\n    assert g(3) == 4\n",
    "fixture": "def test_f_goal(no_such_fixture):\n    assert True\n",
    "project": "from pkg.mod import inverse\n\n\ndef test_f_goal():\n    assert inverse(0) == 0\n",
}


@pytest.mark.e2e  # seven sandboxed pytest runs
@pytest.mark.parametrize("backend", ["auto"])
def test_verification_in_the_real_sandbox(tmp_path: Path, backend: str) -> None:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text("def f(x):\n    return x\n\n\ndef inverse(x):\n    return 1 / x\n")
    (root / "tests").mkdir()
    for name, text in CASES.items():
        (root / "tests" / f"test_{name}_goal.py").write_text(text)
    runner = PytestRunner.open(root, choose(SandboxSettings(backend=backend)), Limits(test_timeout=60), PYTHON,
                               warm_workers=0)
    try:
        got = {name: verify(runner, [f"tests/test_{name}_goal.py::test_f_goal"], f"tests/test_{name}_goal.py")
               for name in CASES}
    finally:
        runner.close()
    assert got["assertion"].ok and "assert 3 == 4" in got["assertion"].observed
    assert got["project"].ok and "division by zero" in got["project"].observed
    assert got["passes"].message == PASSES
    assert got["import"].message.startswith("fails for the wrong reason") and "ModuleNotFoundError" in got["import"].message
    assert got["syntax"].message.startswith("fails for the wrong reason") and "SyntaxError" in got["syntax"].message
    assert "NameError in the test itself" in got["name"].message
    assert "fixture" in got["fixture"].message
    assert not any(v.ok for k, v in got.items() if k not in ("assertion", "project"))


@pytest.mark.parametrize("exc, where", [
    ("Unsatisfiable", ".venv/lib/python3.11/site-packages/hypothesis/core.py"),
    ("FailedHealthCheck", T),
    ("InvalidArgument", "/usr/lib/python3/site-packages/hypothesis/strategies/_internal/core.py"),
])
def test_hypothesis_own_errors_are_the_wrong_reason(exc: str, where: str) -> None:
    res = TestResult(f"{T}::test_f_goal_1", "failed", exc_type=exc, message="Unable to satisfy assumptions",
                     frames=(Frame(T, 9, "test_f_goal_1"), Frame(where, 3, "run", in_project=False)))
    got = judge(TestReport((res,)), [res.nodeid], T)
    assert not got.ok and "Hypothesis could not check the property" in got.message


def test_a_falsifying_example_is_the_stated_reason() -> None:
    res = TestResult(f"{T}::test_f_goal_1", "failed", exc_type="AssertionError",
                     message="cap(101) returned 101\nassert 101 <= 100", frames=(Frame(T, 14, "test_f_goal_1"),))
    got = judge(TestReport((res,)), [res.nodeid], T)
    assert got.ok and got.observed == "cap(101) returned 101"

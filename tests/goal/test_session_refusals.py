"""A goal session refuses before anything runs when the words or the examples cannot be used; the
user's files stay as they were and the summary says why."""

from __future__ import annotations

import hashlib
from pathlib import Path

from fixloop.application.config import load
from fixloop.application.run import RunRequest
from fixloop.application.goal.request import Goal
from fixloop.application.goal.session import GoalSession

UNSAFE = '''def f(x):
    """Doubles.

    >>> __import__("os").system("touch /tmp/fixloop-goal-pwned")
    0
    >>> f(2)
    4
    """
    return x + x
'''


def digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".fixloop" not in p.parts}


def session(root: Path, text: str) -> GoalSession:
    settings, problems = load({"memory": {"enabled": False}, "offline": True})
    assert not problems
    return GoalSession(RunRequest(root, settings, notes=()), Goal(text, yes=True))


def test_an_unsafe_docstring_example_is_never_offered_or_run(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "mod.py").write_text(UNSAFE)
    before = digest(root)
    s = session(root, "make f match its docstring")
    outcome = s.run()
    assert outcome.status.value == "error" and s.summary["goal_problem"] == "test"
    assert "would do something unsafe" in outcome.message and "FL-S013" in outcome.message
    assert digest(root) == before and not Path("/tmp/fixloop-goal-pwned").exists()


def test_usage_problems_are_named_in_the_summary_and_the_run_log(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "mod.py").write_text("def f(x):\n    return x\n")
    s = session(root, "   ")
    assert s.run().message.startswith("the goal is empty")
    assert s.summary["goal_problem"] == "usage" and s.summary["test_file"] == ""
    assert (Path(s.summary["run_dir"]) / "summary.json").exists()
    assert [p.name for p in root.iterdir() if p.name != ".fixloop"] == ["mod.py"]

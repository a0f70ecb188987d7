"""Scripted models for the fake server: answer plan, propose and reflect requests by their shape.

A request with tool_choice none is the plan, one forcing record_reflection is a reflection, and any
other is a propose turn. `edits` yields the edit (path, old, new) for each new candidate, so a test
can script a model that is wrong first and right second, or one that never learns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from fixloop.core.model import Frame, TestResult
from tests.fakes import Call, ScriptedRunner

from .fake_anthropic import message, text, tool_use

Edit = tuple[str, str, str]


def kind_of(body: dict[str, Any]) -> str:
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "none":
        return "plan"
    if choice.get("type") == "tool" and choice.get("name") == "record_reflection":
        return "reflect"
    if choice.get("type") == "tool" and choice.get("name") == "record_review":
        return "review"
    last = body["messages"][-1]
    content = last["content"] if isinstance(last["content"], list) else []
    if any(b.get("type") == "tool_result" for b in content):
        return "after_tool"
    return "propose"


class ScriptedModel:
    """Callable fallback for FakeAnthropic: plan once, then one edit per candidate, then stop."""

    def __init__(self, edits: Iterator[Edit] | list[Edit], tokens: int = 400, look_first: bool = True,
                 reflection: dict[str, Any] | None = None, cache_read: int = 0) -> None:
        self.edits = iter(edits)
        self.tokens = tokens
        self.cache_read = cache_read  # reported on every call after the first, as a warm prompt cache would
        self.look_first = look_first
        self.reflection = reflection or {"root_cause": "the divisor is wrong", "location": "calc.py:3",
                                         "strategy": "divide by the real count and guard the empty list",
                                         "confidence": 0.7}
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self._pending: Edit | None = None

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        kind = kind_of(body)
        self.seen.append((kind, body))
        usage = {"input_tokens": self.tokens, "output_tokens": self.tokens // 10,
                 "cache_read": self.cache_read if len(self.seen) > 1 else 0}
        if kind == "plan":
            return message(text("Hypothesis: the function divides wrongly.\nLocation: calc.py:3\nPlan: fix it."), **usage)
        if kind == "reflect":
            return message(tool_use("record_reflection", self.reflection), **usage)
        if kind == "review":
            return message(tool_use("record_review", {"verdict": "accept", "reason": "scripted review"}), **usage)
        if kind == "after_tool":
            if self._pending is not None:
                path, old, new = self._pending
                self._pending = None
                return message(tool_use("replace_snippet", {"path": path, "old": old, "new": new}), **usage)
            return message(text("Fix: scripted edit"), **usage)
        try:
            edit = next(self.edits)
        except StopIteration:
            return message(text("I have no further idea."), **usage)
        if self.look_first:
            self._pending = edit
            return message(text("Let me look first."), tool_use("view_file", {"path": edit[0]}), **usage)
        path, old, new = edit
        return message(tool_use("replace_snippet", {"path": path, "old": old, "new": new}), **usage)


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, body in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return root


AVERAGE_PROJECT = {
    "calc.py": (
        "def average(values):\n"
        "    \"\"\"Mean of the values; 0.0 for an empty list.\"\"\"\n"
        "    return sum(values) / len(values)\n"
    ),
    "test_calc.py": (
        "from calc import average\n\n\n"
        "def test_average():\n"
        "    assert average([1, 2, 3]) == 2\n\n\n"
        "def test_empty():\n"
        "    assert average([]) == 0.0\n"
    ),
}
OLD_LINE = "    return sum(values) / len(values)\n"
RIGHT = ("calc.py", OLD_LINE, "    if not values:\n        return 0.0\n    return sum(values) / len(values)\n")


def wrong(k: int) -> Edit:
    """A plausible-looking edit that fixes the empty case but breaks the mean: the same failure each time."""
    return ("calc.py", OLD_LINE, f"    return sum(values) / (len(values) + {k})\n")


def always(edit: Edit) -> Callable[[], Iterator[Edit]]:
    def gen() -> Iterator[Edit]:
        while True:
            yield edit
    return gen


_WRONG_DIVISOR = re.compile(r"sum\(values\) / \(len\(values\) \+ (\d+)\)")


def average_verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> list[TestResult]:
    """What pytest reports for AVERAGE_PROJECT with this calc.py, for the edits the scripted models make
    (RIGHT, `wrong(k)`, or none): the fake runner's verdict where the run itself is not under test."""
    code = sources["calc.py"]
    average = TestResult("test_calc.py::test_average", "passed")
    empty = TestResult("test_calc.py::test_empty", "passed")
    if "if not values" in code:
        return [average, empty]
    wrong_by = _WRONG_DIVISOR.search(code)
    if wrong_by:
        mean = 6 / (3 + int(wrong_by.group(1)))
        return [TestResult("test_calc.py::test_average", "failed", exc_type="AssertionError",
                           message=f"assert {mean} == 2\n +  where {mean} = average([1, 2, 3])",
                           frames=(Frame("test_calc.py", 5, "test_average"),)), empty]
    return [average, TestResult("test_calc.py::test_empty", "failed", exc_type="ZeroDivisionError",
                                message="division by zero",
                                frames=(Frame("test_calc.py", 9, "test_empty"), Frame("calc.py", 3, "average")))]


def average_runner(project: Path) -> ScriptedRunner:
    """A runner without processes for AVERAGE_PROJECT: its sources are the project's Python files, and
    the proposer's workspace is the project itself (the tools only read it)."""
    runner = ScriptedRunner({p.name: p.read_text(encoding="utf-8") for p in sorted(project.glob("*.py")) if not p.is_symlink()},
                            average_verdict)
    runner.root = project  # type: ignore[assignment]
    return runner

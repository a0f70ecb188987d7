"""The general scripted model answers from the request alone: examples in the goal or a docstring."""

from __future__ import annotations

from typing import Any

from .general_goal_model import GeneralGoalModel, goal_examples

CASE = """The developer's goal, in their words:
$GOAL

## Functions the goal points at (best first)
<data kind="code">
calc/ops.py::page_count (lines 1-6, import from calc.ops)
def page_count(items, per_page):
    \"\"\"Pages needed.

    >>> page_count(4, 2)
    2
    >>> page_count(5, 2)
    3
    \"\"\"
    return items // per_page + 1
</data>
"""


def _body(goal: str, last_tool: str, after_tool: bool, ask: str = "") -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": [
        {"type": "text", "text": CASE.replace("$GOAL", goal)}, {"type": "text", "text": ask}]}]
    if after_tool:
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "view_file",
                                                        "input": {"path": "calc/ops.py"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "..."}]}]
    return {"messages": messages, "tools": [{"name": "view_file"}, {"name": last_tool}]}


def _tool(reply: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    uses = [b for b in reply["content"] if b["type"] == "tool_use"]
    return (uses[0]["name"], uses[0]["input"]) if uses else None


def test_it_looks_first_then_writes_the_goals_example_and_the_docstrings_as_a_test() -> None:
    model = GeneralGoalModel()
    goal = "page_count(10, 5) should be 2; it says 3"
    assert _tool(model(_body(goal, "write_spec", False))) == ("view_file", {"path": "calc/ops.py"})
    name, spec = _tool(model(_body(goal, "write_spec", True)))  # type: ignore[misc]
    assert name == "write_spec" and spec["example"] == "page_count(10, 5) == 2"
    assert spec["where"] == "calc/ops.py::page_count"
    ask = "Write the reproduction test with write_test to the path tests/test_page_count_goal.py (a new file)."
    name, test = _tool(model(_body(goal, "write_test", True, ask)))  # type: ignore[misc]
    assert name == "write_test" and test["path"] == "tests/test_page_count_goal.py"
    assert "from calc.ops import page_count" in test["content"]
    assert [line.strip() for line in test["content"].splitlines() if "assert" in line] == [
        "assert page_count(10, 5) == 2", "assert page_count(4, 2) == 2", "assert page_count(5, 2) == 3"]
    compile(test["content"], "t.py", "exec")


def test_with_no_example_anywhere_it_records_nothing_and_asks_nothing() -> None:
    model = GeneralGoalModel()
    case_without_doctests = "parcels of exactly 5 kg are charged the heavy rate"
    body = _body(case_without_doctests, "write_spec", True)
    body["messages"][0]["content"][0]["text"] = body["messages"][0]["content"][0]["text"].replace(">>>", "")
    assert _tool(model(body)) is None
    assert _tool(model(_body("page_count is wrong", "ask_questions", True))) is None
    assert _tool(model({"messages": [{"role": "user", "content": "fix"}], "tools": [{"name": "replace_snippet"}]})) is None


def test_goal_phrasings_give_the_expected_value_not_the_wrong_one() -> None:
    said = {"to_fahrenheit(100) returns 148.0 instead of 212.0": ("to_fahrenheit(100)", 212.0),
            "largest([3, 9, 4]) gives 3 but should be 9": ("largest([3, 9, 4])", 9),
            "`last([1, 2, 3])` should return 3": ("last([1, 2, 3])", 3),
            "clamp(12, 0, 10) should be 10, it returns 0": ("clamp(12, 0, 10)", 10)}
    for goal, (call, expected) in said.items():
        assert [(e.call, e.expected) for e in goal_examples(goal)] == [(call, expected)], goal
    assert goal_examples("make grade match its docstring") == []

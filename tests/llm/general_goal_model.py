"""A general scripted model for goal runs: a deterministic stand-in that reads what fixloop sent it.

Unlike `goal_model.ScriptedGoalModel` (one scenario's fixed answers), it knows no project: every answer
is built from the request alone. The case text names the functions the goal points at (with their
source, so their docstrings) and the goal in the developer's words; from those it takes the examples
a careful reader would (`f(3) should be 4`, `f(3) returns 5 instead of 4`, `f(3) == 4` in the goal;
`>>> f(3)` / `4` in the docstring) and writes a spec and a pytest test of them. It looks at the code
first (one `view_file` per step), asks no questions, and writes no repairs (the repair model's turns
get "no fix" in words), so a run's fix comes from the engine. With no example to go on it answers
without the recording tool, and fixloop falls back to its offline author.

What it measures: the model path of goal mode (tools, budget, fallback, the sandboxed verification of a
model's test), not a real model's judgement.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from .fake_anthropic import message, text, tool_use
from .goal_model import REVIEW, _after_tool, _test_path, step_of

_TARGET = re.compile(r"^(?P<path>\S+?)::(?P<function>[\w.]+) \(lines \d+-\d+, import from (?P<module>[\w.]+)\)$", re.M)
_CALL_START = re.compile(r"\b([A-Za-z_]\w*)\(")
_SAYS = re.compile(r"^\s*`?\s*(?:(?:should|must) (?:be|return|give|equal)|==|returns? .+? instead of|gives? .+? "
                   r"(?:but|instead of)? ?(?:it )?should (?:be|return))\s*")
_DOCTEST = re.compile(r"^\s*>>> (?P<call>.+)\n\s*(?P<out>(?!>>>)\S.*)$", re.M)


@dataclass(frozen=True)
class Target:
    path: str
    function: str
    module: str
    source: str


@dataclass(frozen=True)
class Example:
    call: str  # a Python call expression, e.g. "clamp(12, 0, 10)"
    expected: Any  # a literal

    def assertion(self) -> str:
        if isinstance(self.expected, float):
            return f"assert {self.call} == pytest.approx({self.expected!r})"
        if isinstance(self.expected, bool) or self.expected is None:
            return f"assert {self.call} is {self.expected!r}"
        return f"assert {self.call} == {self.expected!r}"


def _first_text(body: dict[str, Any]) -> str:
    first = body["messages"][0]["content"]
    return "\n".join(str(b.get("text") or "") for b in first) if isinstance(first, list) else str(first)


def goal_of(case: str) -> str:
    said = case.split("in their words:\n", 1)[-1]
    return said.split("\n\n", 1)[0].strip()


def targets_of(case: str) -> list[Target]:
    """The functions the case shows, best first, each with its source (up to its data block's end)."""
    out = []
    for m in _TARGET.finditer(case):
        source = case[m.end():].split("\n</data>", 1)[0]
        out.append(Target(m["path"], m["function"], m["module"], source))
    return out


def _call_at(said: str, start: int) -> str | None:
    depth = 0
    for i in range(said.index("(", start), len(said)):
        depth += {"(": 1, ")": -1}.get(said[i], 0)
        if depth == 0:
            return said[start:i + 1]
    return None


def _literal(said: str) -> Any:
    """The longest leading Python literal of `said` that ends at a word boundary ("10, it returns 0" -> 10)."""
    for end in range(len(said), 0, -1):
        piece = said[:end].strip().rstrip("`")
        if not piece or piece.endswith(",") or (end < len(said) and said[end] not in " \t;,:.`)"):
            continue
        try:
            return ast.literal_eval(piece)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    raise ValueError("no literal")


def goal_examples(goal: str) -> list[Example]:
    out = []
    for m in _CALL_START.finditer(goal):
        call = _call_at(goal, m.start())
        if call is None:
            continue
        rest = goal[m.start() + len(call):]
        says = _SAYS.match(rest)
        if not says:
            continue
        try:
            out.append(Example(call, _literal(rest[says.end():])))
        except ValueError:
            continue
    return out


def docstring_examples(target: Target) -> list[Example]:
    out = []
    for m in _DOCTEST.finditer(target.source):
        call = m["call"].strip()
        if not call.startswith(target.function.rsplit(".", 1)[-1] + "("):
            continue
        try:
            out.append(Example(call, ast.literal_eval(m["out"].strip())))
        except (ValueError, SyntaxError):
            continue
    return out


def examples_for(case: str) -> tuple[Target | None, list[Example]]:
    """The target and its examples: the goal's own first (they name their function), else the docstring's."""
    targets = targets_of(case)
    said = goal_examples(goal_of(case))
    for t in targets:
        name = t.function.rsplit(".", 1)[-1]
        own = [e for e in said if e.call.startswith(name + "(")]
        if own:
            return t, own + [d for d in docstring_examples(t) if d.call not in {e.call for e in own}]
    for t in targets:
        found = docstring_examples(t)
        if found:
            return t, found
    return (targets[0] if targets else None), []


def test_source(module: str, function: str, examples: list[Example]) -> str:
    name = function.rsplit(".", 1)[-1]
    lines = [f"    {e.assertion()}" for e in examples]
    return (f"import pytest\n\nfrom {module} import {name}\n\n\n"
            f"def test_{name}_as_the_goal_says():\n" + "\n".join(lines) + "\n")


@dataclass
class GeneralGoalModel:
    steps: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        step = step_of(body)
        self.steps.append(step)
        if step == "plan":
            return message(text("No hypothesis of my own: I leave the repair to the engine."))
        if step == "reflect":
            return message(tool_use("record_reflection", {"root_cause": "unknown", "location": "",
                                                          "strategy": "none", "confidence": 0.0}))
        if step == "review":
            return message(tool_use("record_review", REVIEW))
        if step == "propose":
            return message(text("I have no fix to offer."))
        case = _first_text(body)
        target, examples = examples_for(case)
        if not _after_tool(body) and target is not None:
            return message(text("Let me look at the code first."), tool_use("view_file", {"path": target.path}))
        if step == "ask_questions" or target is None or not examples:
            return message(text("No questions." if step == "ask_questions" else "I find no example to go on."))
        first = examples[0]
        if step == "write_spec":
            return message(tool_use("write_spec", {
                "expected": f"{first.call} == {first.expected!r}", "actual": "the current code returns something else",
                "where": f"{target.path}::{target.function}", "example": f"{first.call} == {first.expected!r}"}))
        return message(tool_use("write_test", {"path": _test_path(body),
                                               "content": test_source(target.module, target.function, examples)}))

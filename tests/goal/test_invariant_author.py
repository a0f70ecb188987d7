"""The offline author with invariants: what the words state beside or instead of examples, the test file
it makes of them, and the refusals that say what to add (statically; the sandboxed runs are in
test_invariant_goal.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fixloop.application.testgen.goal_offline import OfflineAuthor
from fixloop.core.goal import GoalContext, GoalRefused, Target
from fixloop.application.testgen.stated import stated

MOD = '''def cap(x: int) -> int:
    """The score shown.

    Returns a number that is never more than 100.
    """
    if x > 100:
        return 101
    return x


def untyped(x):
    return x
'''


def target(name: str) -> Target:
    line = MOD.splitlines().index(next(l for l in MOD.splitlines() if l.startswith(f"def {name}("))) + 1
    doc = "The score shown.\n\nReturns a number that is never more than 100." if name == "cap" else ""
    return Target("board/score.py", name, line, line + 5, "board.score", "", doc, f"{name}(x)")


def context(goal: str, name: str = "cap") -> GoalContext:
    return GoalContext(goal, Path("/nowhere"), {"board/score.py": MOD}, (target(name),),
                       test_path=f"tests/test_{name}_goal.py")


def test_an_invariant_alone_makes_a_property_test() -> None:
    author = OfflineAuthor()
    ctx = context("cap(x) must never be more than 100")
    spec = author.spec(ctx)
    assert spec.expected == "for every input: cap(x) <= 100" and "the invariant stated in goal text" in spec.assumptions[-1]
    test = author.reproduction_test(spec, ctx)
    assert test.origin == "goal-text-invariant" and test.tests == ("test_cap_goal_1",)
    tree = ast.parse(test.source)
    assert "from board.score import cap" in test.source and "@given(x=st.integers())" in test.source
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == ["test_cap_goal_1"]


def test_examples_first_and_invariants_beside_them() -> None:
    s = stated("cap(500) should be 100; cap(x) is never more than 100", target("cap"), MOD)
    assert s.claims == ["cap(500) == 100", "for every input: cap(x) <= 100"] and s.origin == "goal-text"
    test = OfflineAuthor().reproduction_test(OfflineAuthor().spec(context("cap(500) should be 100; cap(x) is never "
                                                                          "more than 100")),
                                             context("cap(500) should be 100; cap(x) is never more than 100"))
    assert test.tests == ("test_cap_goal_1", "test_cap_goal_2")
    source = test.source
    assert source.index("assert cap(500) == 100") < source.index("@given(") and ast.parse(source)
    assert source.count("from hypothesis import") == 1


def test_the_docstrings_invariant_when_the_words_state_none() -> None:
    s = stated("cap is wrong for big scores", target("cap"), MOD)
    assert s.claims == ["for every input: cap(x) <= 100"] and s.origin == "docstring-invariant"


def test_no_hint_no_property_and_the_message_says_what_to_add() -> None:
    with pytest.raises(GoalRefused) as refused:
        OfflineAuthor().spec(context("untyped(x) must never be negative", "untyped"))
    message = refused.value.message
    assert "the goal states for every input: untyped(x) >= 0" in message
    assert "parameter `x` of untyped has no type hint" in message and "add an example to the goal" in message
    assert not refused.value.usage


def test_without_hypothesis_the_examples_stay_or_the_message_says_to_install_it() -> None:
    missing = "fails for the wrong reason: ModuleNotFoundError: No module named 'hypothesis'"
    author = OfflineAuthor()
    ctx = context("cap(x) must never be more than 100")
    with pytest.raises(GoalRefused, match=r"needs Hypothesis, which the project's interpreter does not have: "
                                          r"install it there \(pip install hypothesis\)"):
        author.reproduction_test(author.spec(ctx), ctx, missing)
    author = OfflineAuthor()
    ctx = context("cap(500) should be 100; it is never more than 100")
    test = author.reproduction_test(author.spec(ctx), ctx, missing)
    assert "hypothesis" not in test.source and test.tests == ("test_cap_goal",)
    assert author.notes and "has no Hypothesis" in author.notes[-1]
    with pytest.raises(GoalRefused, match="No module named 'hypothesis'"):  # a second refusal is final
        author.reproduction_test(author.spec(ctx), ctx, missing)


def test_the_docstrings_preconditions_bound_the_goals_invariant() -> None:
    module = MOD.replace('"""The score shown.', '"""The score shown. x must be positive.')
    t = target("cap")
    t = Target(t.path, t.function, t.line, t.end_line, t.module, "", "The score shown. x must be positive.",
               t.signature)
    s = stated("cap(x) must never be more than 100", t, module)
    assert "@given(x=st.integers(min_value=1))" in s.props[0].source

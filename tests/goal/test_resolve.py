"""Which function the words mean (tree-sitter over the sources, nothing imported), the spec, the questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixloop.kit.source_index import Index, module_name
from fixloop.application.testgen.goal_offline import OfflineAuthor
from fixloop.application.goal.place import new_test_path, folder_for_tests
from fixloop.core.goal import GoalAuthor, GoalContext, GoalRefused
from fixloop.application.goal.resolve import check_words, resolve

SOURCES = {
    "shop/__init__.py": "",
    "shop/cart.py": '''import os

RATE = 0.1


def discount(qty):
    """Bulk rate.

    >>> discount(10)
    0.1
    """
    return 0.1 if qty > 10 else 0.0


class Cart:
    @property
    def size(self):
        return 0

    def total(self, prices):
        """Sum.

        >>> Cart().total([1, 2])
        3
        """
        return sum(prices) + 1
''',
    "shop/tax.py": "def total(x):\n    return x\n",
    "tests/test_cart.py": "def test_nothing():\n    pass\n",
}


def ctx(goal: str, cursor_path: str = "", cursor_line: int = 0) -> GoalContext:
    index = Index.build(SOURCES)
    cursor = index.at(cursor_path, cursor_line) if cursor_line else None
    found = resolve(check_words(goal), index, set(SOURCES), cursor)
    return GoalContext(goal=goal, workspace=Path("/nowhere"), sources=SOURCES, candidates=found.candidates,
                       test_path="tests/test_x_goal.py")


def test_index_finds_functions_and_methods_statically() -> None:
    index = Index.build(SOURCES)
    assert [t.where for t in index.targets] == ["shop/cart.py::discount", "shop/cart.py::Cart.size",
                                                "shop/cart.py::Cart.total", "shop/tax.py::total"]
    discount = index.named("discount")[0]
    assert (discount.module, discount.line, discount.signature) == ("shop.cart", 6, "discount(qty)")
    assert discount.docstring.startswith("Bulk rate.\n\n>>> discount(10)")
    assert index.at("shop/cart.py", 21).function == "Cart.total"
    assert module_name("src/pkg/mod.py", {}) == "pkg.mod" and module_name("pkg/__init__.py", {}) == "pkg"


def test_a_named_call_is_certain_and_gives_the_spec() -> None:
    c = ctx("discount(10) returns 0.0 but should be 0.1")
    author: GoalAuthor = OfflineAuthor()
    assert [t.where for t in c.candidates] == ["shop/cart.py::discount"]
    assert author.questions(c) == ()
    spec = author.spec(c)
    assert (spec.where, spec.expected, spec.example) == ("shop/cart.py::discount", "discount(10) == 0.1",
                                                         "discount(10) == 0.1")
    test = author.reproduction_test(spec, c)
    assert test.path == "tests/test_x_goal.py" and test.origin == "goal-text"
    assert "from shop.cart import discount" in test.source and test.node_ids == (
        "tests/test_x_goal.py::test_discount_goal",)


def test_the_same_name_in_two_files_is_a_question_with_a_default() -> None:
    c = ctx("total is off by one")
    questions = OfflineAuthor().questions(c)
    assert len(questions) == 1 and questions[0].id == "target"
    # The one with docstring examples is offered first and assumed under --yes.
    assert questions[0].choices == ("shop/cart.py::Cart.total", "shop/tax.py::total")
    assert questions[0].default == "shop/cart.py::Cart.total"
    answered = GoalContext(**{**c.__dict__, "answers": {"target": "shop/cart.py::Cart.total"}})
    spec = OfflineAuthor().spec(answered)
    assert spec.expected == "Cart().total([1, 2]) == 3" and OfflineAuthor().questions(answered) == ()


def test_a_file_named_in_the_words_narrows_the_search() -> None:
    assert [t.where for t in ctx("total in shop/tax.py is wrong").candidates] == ["shop/tax.py::total"]


def test_the_cursor_decides_when_the_words_name_nothing() -> None:
    assert [t.where for t in ctx("this returns the wrong thing", "shop/tax.py", 2).candidates] == ["shop/tax.py::total"]


@pytest.mark.parametrize("goal, message", [
    ("", "the goal is empty"),
    ("   \n ", "the goal is empty"),
    ("?!? 42", "has no words"),
    ("refund(3) should be 2", "no function of that name"),
    ("the bug is in shop/nothere.py", "not a Python file of this project"),
    ("the colours are ugly", "names no function of this project"),
])
def test_bad_goals_are_usage_errors(goal: str, message: str) -> None:
    with pytest.raises(GoalRefused, match=message) as refused:
        ctx(goal)
    assert refused.value.usage


def test_nothing_to_build_a_test_from_says_what_to_add() -> None:
    c = ctx("shop/tax.py total is wrong")
    with pytest.raises(GoalRefused, match="add an example to the goal.*or a `>>>` example") as refused:
        OfflineAuthor().spec(c)
    assert not refused.value.usage


def test_the_test_goes_where_the_project_keeps_tests(tmp_path: Path) -> None:
    names = ["pkg/mod.py", "checks/test_a.py", "test/test_b.py", "test/test_c.py"]
    assert folder_for_tests(tmp_path, names, "pkg/mod.py") == "test"
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["checks"]\n')
    assert folder_for_tests(tmp_path, names, "pkg/mod.py") == "checks"
    assert folder_for_tests(tmp_path / "none", ["pkg/mod.py"], "pkg/mod.py") == "pkg"
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "test_mod_goal.py").write_text("")  # never overwritten: the next free name
    assert new_test_path(tmp_path, names, "pkg/mod.py", "Thing.mod") == "checks/test_mod_goal_2.py"

"""Examples read statically: from the goal's words and from docstrings, and the test source made of them."""

from __future__ import annotations

import ast

import pytest

from fixloop.application.testgen.examples import docstring_examples, render_test, text_examples


@pytest.mark.parametrize("goal, claims", [
    ("`f(3)` should be 4", ["f(3) == 4"]),
    ("discount(10) returns 9.0", ["discount(10) == 9.0"]),
    ("f(3) == 4", ["f(3) == 4"]),
    ("discount(10) returns 10.0 instead of 9.0", ["discount(10) == 9.0"]),
    ("total([1, 2]) gives 4 but should be 3.", ["total([1, 2]) == 3"]),
    ("f(-1) should raise ValueError", ["f(-1) raises ValueError"]),
    ("mean([]) should return 0.0 for an empty list", ["mean([]) == 0.0"]),
    ('slug("A B") should be "a-b"', ["slug('A B') == 'a-b'"]),
    ("price(2, qty=3) is 6. Also f(1) -> 2", ["price(2, qty=3) == 6", "f(1) == 2"]),
    ("expected clamp(12) to be 10", ["clamp(12) == 10"]),
    ("the bulk discount is applied one unit too late", []),
    ("make f match its docstring", []),
])
def test_examples_in_words(goal: str, claims: list[str]) -> None:
    assert [e.claim() for e in text_examples(goal)] == claims


def test_examples_in_words_keep_to_the_named_functions() -> None:
    assert [e.claim() for e in text_examples("f(1) -> 2; g(2) -> 3", {"g"})] == ["g(2) == 3"]


DOC = '''Add two numbers.

>>> add(2, 3)
5
>>> box = Box(2)
>>> box.size()
'big'
>>> print(fmt(3))
3.00
>>> add(-1, 'a')
Traceback (most recent call last):
  ...
TypeError: bad operand
>>> Box(1)
<Box 1>
'''


def test_docstring_examples_keep_setup_and_the_kind_of_comparison() -> None:
    got = docstring_examples(DOC)
    assert [e.claim() for e in got] == ["add(2, 3) == 5", "box.size() == 'big'", "fmt(3) == '3.00'",
                                        "add(-1, 'a') raises TypeError", "Box(1) == '<Box 1>'"]
    assert got[1].setup == ("box = Box(2)",) and got[2].by_str and got[4].by_repr
    assert all(e.origin == "docstring" for e in got)


def test_a_docstring_without_examples_or_broken_ones_gives_none() -> None:
    assert docstring_examples("Just words.") == []
    assert docstring_examples("  >>> f(1)\n 2\n") == []  # inconsistent indentation


def test_rendered_test_imports_what_it_uses_and_parses() -> None:
    module_source = "import math\n\nclass Box:\n    pass\n\ndef add(a, b):\n    return a + b\n\ndef fmt(x):\n    return x\n"
    source, names = render_test("shop.calc", module_source, docstring_examples(DOC), "add", 'Says """ and \\ safely')
    tree = ast.parse(source)
    assert names == tuple(f"test_add_goal_{i}" for i in range(1, 6))
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == list(names)
    assert "from shop.calc import Box, add, fmt" in source and "import pytest" in source
    assert "    assert repr(Box(1)) == '<Box 1>'" in source
    assert "    with pytest.raises(TypeError):\n        add(-1, 'a')" in source


def test_docstring_code_cannot_shape_the_generated_file() -> None:
    doc = ">>> f(1,\n...   2)\n3\n>>> g([1,\n...    2])\n[1,\n 2]\n"
    got = docstring_examples(doc)
    assert [e.claim() for e in got] == ["f(1, 2) == 3", "g([1, 2]) == [1, 2]"]
    source, _ = render_test("m", "def f(a, b): pass\ndef g(x): pass\n", got, "f", "header")
    ast.parse(source)
    assert all(line.startswith(("    ", "def ", "from ", '"""')) or not line for line in source.splitlines())

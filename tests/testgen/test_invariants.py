"""Invariants stated in words -> Hypothesis property tests: the grammar (phrases that are invariants and
phrases that must not be read as one), the rendering, and the rendered file run by real pytest and
Hypothesis (deterministic: the same falsifying example on every run)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.application.testgen.invariant_tests import (NoProperty, invariant_properties, property_file, refusals,
                                             stated_invariants)
from fixloop.application.testgen.invariants import read_invariants
from fixloop.application.testgen.properties import strategy
from fixloop.application.testgen.target import find


@pytest.mark.parametrize("words, function, params, checks, preconditions", [
    ("total() must never be negative", "total", ["prices"], ["result >= 0"], []),
    ("the result is always between lo and hi", "clamp", ["x", "lo", "hi"], ["lo <= result <= hi"], ["lo <= hi"]),
    ("percent(x) returns at most 100", "percent", ["x"], ["result <= 100"], []),
    ("count(items) is at least 1", "count", ["items"], ["result >= 1"], []),
    ("dedupe returns a sorted list", "dedupe", ["items"], ["list(result) == sorted(result)"], []),
    ("top(xs) returns the items in descending order", "top", ["xs"],
     ["list(result) == sorted(result, reverse=True)"], []),
    ("dedupe(xs) should return no duplicates", "dedupe", ["items"], ["len(set(result)) == len(list(result))"], []),
    ("merge(a, b) must never return duplicates", "merge", ["a", "b"], ["len(set(result)) == len(list(result))"], []),
    ("parse should not raise for any int", "parse", ["n"], ["True"], []),
    ("pad(items) has the same length as the input", "pad", ["items"], ["len(result) == len(items)"], []),
    ("discount(price) is never more than price", "discount", ["price"], ["result <= price"], []),
    # The call's argument names stand for the parameters, in order.
    ("discount(p) is never more than p for any non-negative price", "discount", ["price"], ["result <= price"],
     ["price >= 0"]),
    ("clamp(x, lo, hi) is always between lo and hi when lo <= hi", "clamp", ["x", "lo", "hi"],
     ["lo <= result <= hi"], ["lo <= hi"]),
    ("shorten(text) must never be longer than 10 characters", "shorten", ["text"], ["len(result) <= 10"], []),
    ("score must never be negative or more than 100", "score", ["x"], ["result >= 0", "result <= 100"], []),
    ("score is never negative and at most 100", "score", ["x"], ["result >= 0", "result <= 100"], []),
    ("`total(prices)` >= 0", "total", ["prices"], ["result >= 0"], []),
    ("total() always returns an int", "total", ["xs"], ["isinstance(result, int)"], []),
    ("the output of area(w, h) is never less than w", "area", ["w", "h"], ["result >= w"], []),
])
def test_phrases_that_state_an_invariant(words: str, function: str, params: list[str], checks: list[str],
                                          preconditions: list[str]) -> None:
    reading = read_invariants(words, function, params)
    assert [i.check() for i in reading.invariants] == checks
    assert [c.check() for c in reading.preconditions] == preconditions


@pytest.mark.parametrize("words, function, params", [
    ("f(3) should be 4", "f", ["x"]),  # an example: literal arguments
    ("f(3) should be at least 4", "f", ["x"]),
    ("f(3) returns 5 instead of 4", "f", ["x"]),
    ("total returns a negative number instead of zero", "total", ["prices"]),
    ("the total is wrong for negative prices", "total", ["prices"]),  # "negative" is not about the result
    ("total is negative when the cart is empty", "total", ["prices"]),  # a condition it cannot read
    ("total() is more than the expected value", "total", ["prices"]),  # names no parameter or number
    ("make f match its docstring", "f", ["x"]),
    ("parcels of exactly 5 kg are charged the heavy rate by shipping_cost, they should still be light",
     "shipping_cost", ["weight"]),
    ("the bulk discount is applied one unit too late", "bulk", ["n"]),
    ("rank is sometimes sorted", "rank", ["xs"]),  # "sometimes" is no verb phrase this reads
    ("parse raises ValueError", "parse", ["n"]),  # raising, not "never raises"
    ("g is never negative", "f", ["x"]),  # about another function
])
def test_phrases_that_are_not_invariants(words: str, function: str, params: list[str]) -> None:
    assert read_invariants(words, function, params).invariants == []


def test_docstrings_state_invariants_outside_their_parameter_sections() -> None:
    doc = """Total price of the items.

    Args:
        prices: the prices, must never be negative.

    Returns:
        The total, never negative.
    """
    reading = read_invariants(doc, "total", ["prices"], docstring=True)
    assert [i.check() for i in reading.invariants] == ["result >= 0"]
    assert reading.preconditions == []  # the Args line is about `prices`, and is left out
    reading = read_invariants("Returns a non-negative distance.\n\nprice must be positive.", "dist",
                              ["a", "price"], docstring=True)
    assert [i.check() for i in reading.invariants] == ["result >= 0"]
    assert [c.check() for c in reading.preconditions] == ["price > 0"]
    assert read_invariants(">>> f(-1)\n-1\n", "f", ["x"], docstring=True).invariants == []
    assert read_invariants("Shipping cost in euros for a parcel.", "cost", ["w"], docstring=True).invariants == []


MODULE = '''def clamp(x: int, lo: int, hi: int) -> int:
    """Keeps x between lo and hi."""
    if x < lo:
        return lo
    if x > hi:
        return x + 1
    return x


def discount(price: float, rate: float = 0.1) -> float:
    """The price after the discount. Never more than the price."""
    return price * (1 + rate)


def nohint(x, y: int):
    return x


def weird(x: "Decimal") -> int:
    return 0


def safe_div(a: int, b: int) -> float:
    return a / b
'''


def test_strategies_carry_the_stated_bounds() -> None:
    assert strategy("int", "0") == "st.integers(min_value=0)"
    assert strategy("float", "", "100") == "st.floats(max_value=100.0, allow_nan=False, allow_infinity=False)"
    assert strategy("list[int]", "1") == "st.lists(st.integers(min_value=1), max_size=20)"
    assert strategy("int") == "st.integers()"


def test_rendering_is_deterministic_bounded_python() -> None:
    target = find(MODULE, "m.py", "discount", "m", "")
    reading = read_invariants("discount(p) is never more than p for any positive price", "discount", ["price"])
    props = invariant_properties(target, reading, "discount_goal")
    text = property_file("m", "Header with a \\ and \"\"\" in it", props)
    ast.parse(text)
    assert "derandomize=True" in text and "max_examples=200" in text and "database=None" in text
    assert "@given(price=st.floats(min_value=0.001, allow_nan=False, allow_infinity=False))" in text
    assert "assert result <= price" in text and "reject()" not in text  # discount raises nothing itself
    assert props[0].claim == "for every input: discount(price) <= price"
    assert "rate" not in text.split("@given")[1]  # a parameter with a default keeps it


@pytest.mark.parametrize("function, words, message", [
    ("nohint", "nohint(x, y) is never negative", "parameter `x` of nohint has no type hint"),
    ("weird", "weird(x) is never negative", "is not one values can be generated for"),
    ("clamp", "clamp(x, lo, hi) is never more than limit", "limit"),
])
def test_no_property_without_usable_hints(function: str, words: str, message: str) -> None:
    target = find(MODULE, "m.py", function, "m", "")
    reading = read_invariants(words, function, [p.name for p in target.params])
    if not reading.invariants:  # "limit" is no parameter: the words give no invariant at all
        assert message == "limit"
        return
    with pytest.raises(NoProperty, match=message):
        invariant_properties(target, reading, "b")


def test_write_tests_reads_the_docstrings_invariants_and_notes_why_not() -> None:
    notes: list[str] = []
    props = stated_invariants(find(MODULE, "m.py", "discount", "m", ""), MODULE, notes)
    assert [p.kind for p in props] == ["invariant"] and "assert result <= price" in props[0].source
    assert stated_invariants(find(MODULE, "m.py", "clamp", "m", ""), MODULE, notes) == [] and notes == []
    doc_nohint = MODULE.replace("def nohint(x, y: int):\n", "def nohint(x, y: int):\n    \"\"\"Never negative.\"\"\"\n")
    assert stated_invariants(find(doc_nohint, "m.py", "nohint", "m", ""), doc_nohint, notes) == []
    assert notes and "has no type hint" in notes[0]


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "test_props.py"], cwd=root, capture_output=True, text=True, timeout=120)


def test_the_rendered_file_finds_the_bug_the_same_way_on_every_run(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(MODULE)
    target = find(MODULE, "m.py", "clamp", "m", "")
    reading = read_invariants("clamp(x, lo, hi) is always between lo and hi", "clamp", ["x", "lo", "hi"])
    no_raise = find(MODULE, "m.py", "safe_div", "m", "")
    props = invariant_properties(target, reading, "clamp_goal") + invariant_properties(
        no_raise, read_invariants("safe_div should not raise for any int", "safe_div", ["a", "b"]), "div_goal")
    (tmp_path / "test_props.py").write_text(property_file("m", "props", props))
    first, second = _run(tmp_path), _run(tmp_path)
    assert first.returncode == 1, first.stdout
    assert "2 failed" in first.stdout
    # derandomize=True: Hypothesis calls it "Failing test case" (else "Falsifying example").
    assert "Failing test case: test_clamp_goal_1(" in first.stdout and "ZeroDivisionError" in first.stdout
    assert "AssertionError: clamp(" in first.stdout

    def cases(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.startswith("E   ") and "=" in line]
    assert cases(first.stdout) and cases(first.stdout) == cases(second.stdout)


def test_only_the_exceptions_the_function_raises_itself_mean_not_an_input() -> None:
    source = MODULE + '''

def root(x: int) -> float:
    if x < 0:
        raise ValueError("negative")
    if x > 10 ** 6:
        raise OverflowError
    return x ** 0.5
'''
    assert refusals(source, "root") == ["OverflowError", "ValueError"] and refusals(source, "clamp") == []
    target = find(source, "m.py", "root", "m", "")
    prop = invariant_properties(target, read_invariants("root(x) is never negative", "root", ["x"]), "root_goal",
                                refused=refusals(source, "root"))[0]
    assert "    except (OverflowError, ValueError):" in prop.source and "        reject()" in prop.source

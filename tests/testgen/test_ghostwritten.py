"""Hypothesis's ghostwriter's text is untrusted (the project's interpreter wrote it in the sandbox): only
`@given` tests of the target that use their own names, strategies and the module's functions are kept."""

from __future__ import annotations

import ast

from fixloop.application.testgen.ghostwritten import MAX_TEXT, ghostwritten

HEADER = "# written by the ghostwriter\n\nimport pkg.codec\nfrom hypothesis import given, strategies as st\n\n"
ROUNDTRIP = '''
@given(text=st.text(), values=st.lists(st.integers()))
def test_roundtrip_dumps_loads(text: str, values: list[int]) -> None:
    value0 = pkg.codec.dumps(values=values)
    value1 = pkg.codec.loads(text=value0)
    assert values == value1, (values, value1)
'''
OPERANDS = '''
add_operands = st.integers()


@given(a=add_operands, b=add_operands)
def test_commutative_binary_operation_add(a: int, b: int) -> None:
    left = pkg.codec.add(a=a, b=b)
    right = pkg.codec.add(a=b, b=a)
    assert left == right, (left, right)
'''
FUNCTIONS = {"dumps", "loads", "add"}


def test_a_round_trip_is_kept_reprinted_with_bounded_settings() -> None:
    props, why = ghostwritten(HEADER + ROUNDTRIP, "pkg.codec", "dumps", FUNCTIONS)
    assert why == "" and [p.name for p in props] == ["test_roundtrip_dumps_loads"]
    assert props[0].kind == "ghostwriter" and props[0].claim == "Hypothesis's ghostwriter: roundtrip"
    source = props[0].source
    assert source.startswith("@settings(max_examples=100, deadline=None, database=None, derandomize=True)\n@given(")
    assert "value1 = pkg.codec.loads(text=value0)" in source and "list[int]" not in source  # annotations dropped
    ast.parse(source)


def test_the_strategies_a_test_uses_go_with_it() -> None:
    props, _ = ghostwritten(HEADER + OPERANDS, "pkg.codec", "add", FUNCTIONS)
    assert props[0].source.startswith("add_operands = st.integers()\n@settings(")


def test_hostile_or_foreign_text_keeps_nothing() -> None:
    hostile = [
        ROUNDTRIP.replace("value1 = pkg.codec.loads(text=value0)", "value1 = __import__('os').system('id')"),
        ROUNDTRIP.replace("value1 = pkg.codec.loads(text=value0)", "value1 = pkg.codec.os.system('id')"),
        ROUNDTRIP.replace("value1 = pkg.codec.loads(text=value0)", "value1 = pkg.codec.loads.__globals__"),
        ROUNDTRIP.replace("    value0 =", "    import os\n    value0 ="),
        ROUNDTRIP.replace("@given(", "@evil\n@given("),
        ROUNDTRIP.replace("def test_roundtrip", "def helper_roundtrip"),
        ROUNDTRIP.replace("pkg.codec.dumps", "pkg.codec.loads"),  # does not call the target
    ]
    for text in hostile:
        props, why = ghostwritten(HEADER + text, "pkg.codec", "dumps", FUNCTIONS)
        assert props == [] and why, text
    evil_strategy = OPERANDS.replace("st.integers()", "st.just(__import__('os').system('id'))")
    assert ghostwritten(HEADER + evil_strategy, "pkg.codec", "add", FUNCTIONS)[0] == []
    assert ghostwritten("def (:", "pkg.codec", "dumps", FUNCTIONS)[1] == "the ghostwriter's text does not parse"
    assert ghostwritten("x" * (MAX_TEXT + 1), "pkg.codec", "dumps", FUNCTIONS)[1] == "the ghostwriter's text is too long"
    assert "do not import pkg.codec" in ghostwritten(ROUNDTRIP, "pkg.codec", "dumps", FUNCTIONS)[1]

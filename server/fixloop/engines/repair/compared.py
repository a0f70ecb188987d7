"""The two values a failed equality assertion compared, read from its message without running anything.

pytest says `assert <actual> == <expected>`; unittest's `assertEqual` says `<first> != <second>` (after
"Lists differ: " or "Tuples differ: " for sequences, before " : <msg>" when the test gave one). Values are
literals, and the reprs of dates, times, durations, decimals and fractions (`datetime.date(2003, 3, 31)`),
which many date and money libraries' tests compare: each is rebuilt from its literal arguments by a fixed
table of constructors, never by evaluating the text.
"""

from __future__ import annotations

import ast
import datetime
import re
from decimal import Decimal
from fractions import Fraction
from typing import Callable

PYTEST = re.compile(r"assert (.+?) == (.+?)$")
PREFIX = re.compile(r"^(Lists|Tuples) differ: ")
CONSTRUCTORS: dict[str, Callable[..., object]] = {
    "date": datetime.date, "datetime": datetime.datetime, "time": datetime.time, "timedelta": datetime.timedelta,
    "Decimal": Decimal, "Fraction": Fraction,
}
MODULES = ("datetime", "decimal", "fractions")
LONGEST = 4000  # characters of a message's first line read: its splits are tried one by one


def compared(message: str) -> tuple[object, object] | None:
    """(actual, expected) for pytest's message; (first, second) for unittest's; None when unreadable."""
    line = message.splitlines()[0].strip() if message else ""
    if len(line) > LONGEST:
        return None
    m = PYTEST.match(line)
    if m:
        return _pair(m.group(1), m.group(2))
    whole = PREFIX.sub("", line)
    # " != " and " : " may sit inside a string's repr: try each split until both sides read.
    for at in _places(whole, " != "):
        first, second = whole[:at], whole[at + len(" != "):]
        for end in (len(second), *_places(second, " : ")):
            pair = _pair(first, second[:end])
            if pair is not None:
                return pair
    return None


def _places(text: str, part: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(part), text)]


def _pair(actual: str, expected: str) -> tuple[object, object] | None:
    try:
        return _value(ast.parse(actual, mode="eval").body), _value(ast.parse(expected, mode="eval").body)
    except (ValueError, SyntaxError, TypeError, ArithmeticError, RecursionError):
        return None


def _value(node: ast.expr) -> object:
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in MODULES else func.id if isinstance(func, ast.Name) else ""
        if name not in CONSTRUCTORS:
            raise ValueError(name)
        # A timezone (`tzinfo=tzutc()`) is the same on both sides of most comparisons: left out.
        kwargs = {k.arg: _value(k.value) for k in node.keywords if k.arg and k.arg not in ("tzinfo", "fold")}
        return CONSTRUCTORS[name](*[_value(a) for a in node.args], **kwargs)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_value(e) for e in node.elts]
        return list(items) if isinstance(node, ast.List) else tuple(items) if isinstance(node, ast.Tuple) else set(items)
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values) if k is not None}
    return ast.literal_eval(node)

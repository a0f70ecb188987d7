"""What failed comparisons (`assert actual == expected`, unittest's `first != second`) say about the kind
of edit, as per-run operator factors.

A result that is the expected sequence reversed was built in the wrong order (`s + ch` for `ch + s`); a
number that is the expected one negated had its subtraction's operands swapped. A number one away from the
expected one (a date a day, a week, an hour or a month away; a number written in a text), a sequence one
item longer or shorter at either end, or one item put in another place is an off-by-one. These shapes say
nothing about where the bug is, only which operators deserve to go first at the suspicious lines.
"""

from __future__ import annotations

import datetime
import re
from numbers import Number
from typing import Iterable, Mapping

from fixloop.core.model import TestResult
from fixloop.engines.repair.compared import compared

ORDER_OPERATORS = ("concat_order", "augmented_order")
OFFSET_OPERATORS = ("return_offset", "argument_offset", "operand_offset", "assignment_offset", "integer_nudge",
                    "bound_nudge")
TIMES = (datetime.date, datetime.time, datetime.timedelta)  # datetime.datetime is a date
UNITS = frozenset(datetime.timedelta(**{unit: 1}) for unit in ("weeks", "days", "hours", "minutes", "seconds", "microseconds"))
STRONG, WEAK = 3.0, 1.5  # reversed / negated: strong; the same items in another order: weak
DIGITS = re.compile(r"(\d+)")
MOVED_UP_TO = 40  # items of a sequence tried for one moved item (the test is cubic in them)
OFF_BY_ONE = 2.0  # one away: the offsets and nudges, which fire at many places, go first at a tied line


def steering(failures: Iterable[TestResult]) -> dict[str, float]:
    """Factors (>1) for the operators the failed assertions point at; {} when they point nowhere."""
    out: dict[str, float] = {}
    off_by_one: list[bool] = []  # for each assertion of two numbers or two sequences: one away?

    def boost(operators: Iterable[str], factor: float) -> None:
        for op in operators:
            out[op] = max(out.get(op, 1.0), factor)

    for result in failures:
        pair = compared(result.message) if result.exc_type == "AssertionError" else None
        if pair is None:
            continue
        try:
            shapes = _shapes(*pair)
        except (TypeError, ValueError, ArithmeticError):  # values of kinds that do not subtract or compare
            continue
        if "reversed" in shapes or "negated" in shapes:
            boost(ORDER_OPERATORS if "reversed" in shapes else ("swap_operands", "augmented_order"), STRONG)
        elif "reordered" in shapes:
            boost(ORDER_OPERATORS, WEAK)
        if "one away" in shapes or "apart" in shapes:
            off_by_one.append("one away" in shapes)
    # Most of the values compared one away, not just some: `-1 == 0` beside `-1 == 4` is a "not found", not
    # an off-by-one; an item put one place off also puts other results (a first result, a count) anywhere.
    if sum(off_by_one) * 2 > len(off_by_one):
        boost(OFFSET_OPERATORS, OFF_BY_ONE)
    return out


def _shapes(actual: object, expected: object) -> set[str]:
    """Of 'reversed', 'reordered', 'negated', 'one away' and 'apart' (comparable, not one away), those that hold."""
    if isinstance(actual, (str, list, tuple)) and type(actual) is type(expected) and actual != expected:
        out = set()
        if len(actual) > 1 and actual == expected[::-1]:  # type: ignore[index]
            return {"reversed"}  # built backwards: whatever else it looks like (`[1, 2]` is also one moved)
        if len(actual) == len(expected) > 1 and _same_items(actual, expected):  # type: ignore[arg-type]
            out.add("reordered")
        # One item in another place (an insert's position one off), one more or less at an end, a number written
        # in the text one away (`'3.4.0'` for `'3.5.0'`). Text or items that differ otherwise follow from most
        # faults: they neither show nor rule out an off-by-one.
        if _one_moved(actual, expected) or _one_more_at_an_end(actual, expected) or \
                _one_more_at_an_end(expected, actual) or _one_number_away(actual, expected):
            out.add("one away")
        return out
    if _number(actual) and _number(expected):
        if actual == -expected and actual != 0:  # type: ignore[operator]
            return {"negated"}
        return {"one away" if abs(actual - expected) == 1 else "apart"}  # type: ignore[operator]
    if isinstance(actual, TIMES) and type(actual) is type(expected) and actual != expected:
        return {"one away" if _one_unit_away(actual, expected) else "apart"}
    return set()


def _one_number_away(a: object, b: object) -> bool:
    """Two texts alike but for one number in them, one away."""
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    parts_a, parts_b = DIGITS.split(a), DIGITS.split(b)
    if len(parts_a) != len(parts_b):
        return False
    gaps = [(x, y) for x, y in zip(parts_a, parts_b) if x != y]
    return len(gaps) == 1 and gaps[0][0].isdigit() and gaps[0][1].isdigit() and abs(int(gaps[0][0]) - int(gaps[0][1])) == 1


def _one_moved(a: str | list[object] | tuple[object, ...], b: object) -> bool:
    """`b` is `a` with one item taken out and put back elsewhere."""
    if not isinstance(b, type(a)) or len(a) != len(b) or not 1 < len(a) <= MOVED_UP_TO:
        return False
    items = list(a)
    for i in range(len(items)):
        rest = items[:i] + items[i + 1:]
        if any(rest[:j] + [items[i]] + rest[j:] == list(b) for j in range(len(items)) if j != i):
            return True
    return False


def _number(value: object) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def _one_unit_away(a: datetime.date | datetime.time | datetime.timedelta,
                   b: datetime.date | datetime.time | datetime.timedelta) -> bool:
    """One day, week, hour, minute, second or microsecond apart, or one field (a month, a year) one away."""
    if isinstance(a, datetime.time) or isinstance(b, datetime.time):
        return _one_field_away(a, b, ("hour", "minute", "second", "microsecond"))
    gap = abs(a - b)  # type: ignore[operator,arg-type]
    return gap in UNITS or _one_field_away(a, b, ("year", "month", "day", "hour", "minute", "second", "microsecond"))


def _one_field_away(a: object, b: object, fields: tuple[str, ...]) -> bool:
    gaps = [abs(getattr(a, f) - getattr(b, f)) for f in fields if hasattr(a, f) and hasattr(b, f)]
    return sum(gaps) == 1


def _one_more_at_an_end(longer: object, shorter: object) -> bool:
    """`longer` is `shorter` with one item (a character) more at its start or its end."""
    if not isinstance(longer, (str, list, tuple)) or type(longer) is not type(shorter):
        return False
    return len(longer) == len(shorter) + 1 > 1 and (longer[1:] == shorter or longer[:-1] == shorter)  # type: ignore[arg-type,index]


def _same_items(a: Iterable[object], b: Iterable[object]) -> bool:
    try:
        return sorted(a, key=repr) == sorted(b, key=repr)  # type: ignore[arg-type]
    except TypeError:
        return False


def steered(priors: Mapping[str, float], factors: Mapping[str, float]) -> dict[str, float]:
    """The run's learned factors times the steering (learned factors stay bounded; steering is per run)."""
    out = dict(priors)
    for op, factor in factors.items():
        out[op] = float(out.get(op, 1.0)) * factor
    return out

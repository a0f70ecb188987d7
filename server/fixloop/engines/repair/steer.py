"""What a failed `assert actual == expected` says about the kind of edit, as per-run operator factors.

A result that is the expected sequence reversed was built in the wrong order (`s + ch` for `ch + s`);
a number that is the expected one negated had its subtraction's operands swapped; a number one away
from the expected one, or a sequence one item longer or shorter at either end, is an off-by-one. These shapes say
nothing about where the bug is, only which operators deserve to go first at the suspicious lines.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from fixloop.core.model import TestResult
from fixloop.engines.repair.templates import expected_actual

ORDER_OPERATORS = ("concat_order", "augmented_order")
OFFSET_OPERATORS = ("return_offset", "argument_offset", "operand_offset", "assignment_offset", "integer_nudge",
                    "bound_nudge")
STRONG, WEAK = 3.0, 1.5  # reversed / negated: strong; the same items in another order: weak
OFF_BY_ONE = 2.0  # one away: the offsets and nudges, which fire at many places, go first at a tied line


def steering(failures: Iterable[TestResult]) -> dict[str, float]:
    """Factors (>1) for the operators the failed assertions point at; {} when they point nowhere."""
    out: dict[str, float] = {}
    off_by_one: list[bool] = []  # for each assertion of two numbers or two sequences: one away?

    def boost(operators: Iterable[str], factor: float) -> None:
        for op in operators:
            out[op] = max(out.get(op, 1.0), factor)

    for result in failures:
        pair = expected_actual(result.message) if result.exc_type == "AssertionError" else None
        if pair is None:
            continue
        actual, expected = pair
        if isinstance(actual, (str, list, tuple)) and type(actual) is type(expected) and actual != expected:
            if len(actual) > 1 and actual == expected[::-1]:  # type: ignore[index]
                boost(ORDER_OPERATORS, STRONG)
            elif len(actual) == len(expected) > 1 and _same_items(actual, expected):  # type: ignore[arg-type]
                boost(ORDER_OPERATORS, WEAK)
            else:
                off_by_one.append(_one_more_at_an_end(actual, expected) or _one_more_at_an_end(expected, actual))
        elif _number(actual) and _number(expected) and actual == -expected and actual != 0:  # type: ignore[operator]
            boost(("swap_operands", "augmented_order"), STRONG)
        elif _number(actual) and _number(expected):
            off_by_one.append(abs(actual - expected) == 1)  # type: ignore[operator]
    # Every such assertion one away, not just one of them: `-1 == 0` beside `-1 == 4` is a "not found",
    # not an off-by-one.
    if off_by_one and all(off_by_one):
        boost(OFFSET_OPERATORS, OFF_BY_ONE)
    return out


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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

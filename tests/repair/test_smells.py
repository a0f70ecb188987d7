"""A parameter the function never reads, one character from a name read twice on a line: that line is raised
among equally ranked suspects, and the parameter is the first name tried there. Real tree-sitter, the real
localizer over a scripted spectrum."""

from __future__ import annotations

from fixloop.core.model import Suspect
from fixloop.core.model import TestReport as Report
from fixloop.core.model import TestResult as Result
from fixloop.engines.repair import operators as ops
from fixloop.engines.repair.context import one_apart
from fixloop.engines.repair.localize import SpectrumLocalizer
from fixloop.engines.repair.smells import smelly_lines, with_smells
from fixloop.kit.syntax import Offsets, parse, walk

GENERIC = (
    "def more_generic(type1, type2):\n"  # 1
    "    order = {int: 1, float: 2}\n"  # 2
    "    rank = max(order.get(type1, 5), order.get(type1, 5))\n"  # 3: type2 meant
    "    return rank\n"  # 4
    "\n"
    "\n"
    "def column(values, kind):\n"  # 7
    "    kinds = [more_generic(kind, type(v)) for v in values]\n"  # 8
    "    return kinds[-1]\n"  # 9
)


def test_one_apart() -> None:
    assert one_apart("type1", "type2") and one_apart("dx", "dy") and one_apart("value", "value2")
    assert not one_apart("low", "high") and not one_apart("start", "end") and not one_apart("ab", "ba")


def test_only_a_line_reading_the_look_alike_twice_smells() -> None:
    assert set(smelly_lines(GENERIC)) == {3}
    once = GENERIC.replace("order.get(type1, 5), order.get(type1, 5)", "order.get(type1, 5), 5")
    assert smelly_lines(once) == {}  # callbacks read one of the indices they are given: too common to count
    used = GENERIC.replace("    return rank\n", "    return rank if type2 else 0\n")
    assert smelly_lines(used) == {}
    one_letter = GENERIC.replace("type1", "a").replace("type2", "b")
    assert smelly_lines(one_letter) == {}  # single letters are all one apart


def test_the_smelly_line_is_raised_to_the_top_score_and_nothing_else_moves() -> None:
    suspects = (Suspect("m.py", 8, 0.9), Suspect("m.py", 9, 0.9), Suspect("m.py", 3, 0.6), Suspect("m.py", 2, 0.6))
    out = with_smells(suspects, {"m.py": GENERIC})
    assert [(s.line, s.score) for s in out] == [(3, 0.9), (8, 0.9), (9, 0.9), (2, 0.6)]
    assert "type2 is never read" in out[0].reason
    assert with_smells(suspects[:2], {"m.py": GENERIC}) == suspects[:2]  # not a suspect: never added


def test_the_parameter_is_the_first_name_tried_at_that_line() -> None:
    off = Offsets(GENERIC)
    node = next(n for n in walk(parse(GENERIC).root_node) if n.type == "identifier" and n.start_point == (2, 46))
    first = next(iter(ops.replace_identifier(node, off)))
    assert first.summary == "type1 -> type2" and first.weight == ops.UNUSED_PARAMETER


class Coverage:
    """Every test ran every line of both functions: the spectrum alone cannot tell them apart."""

    def coverage(self, select=()):  # type: ignore[no-untyped-def]
        spectra = {f"tests/test_m.py::t{i}": {"m.py": frozenset({2, 3, 4, 8, 9})} for i in range(3)}
        return Report(tuple(Result(t, "failed") for t in spectra)), spectra


def test_the_localizer_puts_the_smelly_line_first_among_equals() -> None:
    failing = tuple(f"tests/test_m.py::t{i}" for i in range(3))
    loc = SpectrumLocalizer(Coverage(), lambda p: p.startswith("tests/"))
    suspects = loc.localize(Report(tuple(Result(t, "failed") for t in failing)), {"m.py": GENERIC}, failing)
    assert (suspects[0].path, suspects[0].line) == ("m.py", 3)


SHOWN = (
    "class Token:\n"  # 1
    "    def __init__(self, value):\n"  # 2
    "        self.value = value\n"  # 3
    "\n"
    "    def __repr__(self):\n"  # 5
    "        return f'<Token {self._get_repr_value()}>'\n"  # 6
    "\n"
    "    def _get_repr_value(self):\n"  # 8
    "        return self.value[:6]\n"  # 9
    "\n"
    "    def next_index(self, idx=-1):\n"  # 11
    "        return idx + 1\n"  # 12
)


def test_the_lines_pytest_runs_to_show_a_failed_assertion_keep_half_their_score() -> None:
    suspects = (Suspect("t.py", 6, 0.9), Suspect("t.py", 9, 0.9), Suspect("t.py", 12, 0.6))
    out = with_smells(suspects, {"t.py": SHOWN})
    assert [(s.line, s.score) for s in out] == [(12, 0.6), (6, 0.45), (9, 0.45)]
    assert "failed assertion" in out[1].reason

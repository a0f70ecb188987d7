"""Operators on values bound at import, +/- 1 on returns and call arguments, and the type-aware filter."""

from __future__ import annotations

import textwrap

from fixloop.engines.repair import operators as ops
from fixloop.engines.repair.context import facts
from fixloop.engines.repair.kinds import kind_of
from fixloop.engines.repair.places import may_stand_for
from fixloop.engines.repair.conditions import none_check
from fixloop.engines.repair.literals import binding_name, binding_value, format_precision
from fixloop.engines.repair.offsets import argument_offset, assignment_offset, operand_offset, return_offset
from fixloop.engines.repair.search import single_candidates, varied
from fixloop.kit.syntax import Offsets, parse, text_of, walk
from tests.repair.test_operators import contains, results


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_binding_value_takes_the_value_the_function_compares_with() -> None:
    before = src('''
        def align(text, width, side="rigth"):
            if side == "left":
                return text.ljust(width)
            if side in ("right", "center"):
                return text.rjust(width)
            return text
    ''')
    assert contains(binding_value, before, before.replace('side="rigth"', 'side="right"'))
    assert contains(binding_value, before, before.replace('side="rigth"', 'side="left"'))


def test_binding_value_none_default_and_none_for_a_checked_default() -> None:
    checked = src('''
        def get(config, key, default=0):
            value = config.get(key)
            if value is None or default is None:
                return default
            return value
    ''')
    assert contains(binding_value, checked, checked.replace("default=0", "default=None"))
    given = src('''
        def join(parts, sep=None):
            if sep is None:
                sep = ", "
            return sep.join(parts)
    ''')
    # A None default filled in by the body: the body's value is a candidate for the default itself.
    assert contains(binding_value, given, given.replace("sep=None", 'sep=", "'))


def test_binding_value_takes_the_same_name_elsewhere_in_the_file() -> None:
    before = src('''
        def page(items, number, size=11):
            return items[(number - 1) * size:number * size]


        def page_count(items, size=10):
            return -(-len(items) // size)
    ''')
    assert contains(binding_value, before, before.replace("size=11", "size=10"))


def test_binding_value_doubles_and_halves_an_integer_when_nothing_better_is_known() -> None:
    before = "def indent(text, width=2):\n    return ' ' * width + text\n"
    assert contains(binding_value, before, before.replace("width=2", "width=4"))
    assert contains(binding_value, before, before.replace("width=2", "width=1"))
    assert not any("width=0" in c for c in results(binding_value, before.replace("width=2", "width=1")))
    compared = "def f(n=8):\n    if n == 3:\n        return 0\n    return n\n"
    off = Offsets(compared)
    found = [m for node in walk(parse(compared).root_node) for m in binding_value(node, off)]
    assert found[0].summary == "n = 8 -> n = 3"  # what the code compares it with comes first
    assert {"n = 8 -> n = 16", "n = 8 -> n = 4"} <= {m.summary for m in found}


def test_binding_name_takes_another_constant_of_the_family() -> None:
    before = src('''
        from .modes import MODE_FAST, MODE_SAFE, OTHER
        EASTER_JULIAN = 1
        EASTER_ORTHODOX = 2
        EASTER_WESTERN = 3
        LIMIT = 10


        def easter(year, method=EASTER_ORTHODOX, mode=MODE_SAFE, flags=EASTER_JULIAN | EASTER_WESTERN):
            return year + method
    ''')
    changed = results(binding_name, before)
    assert before.replace("method=EASTER_ORTHODOX", "method=EASTER_WESTERN") in changed
    assert before.replace("method=EASTER_ORTHODOX", "method=EASTER_JULIAN") in changed
    assert before.replace("mode=MODE_SAFE", "mode=MODE_FAST") in changed
    assert len(changed) == 3  # never LIMIT or OTHER (no family), never a part of `A | B`, never a body name


def test_binding_value_class_attribute_and_constant() -> None:
    cls = src('''
        class Parser:
            mode = "lenient"

            def parse(self, text):
                if self.mode == "strict":
                    raise ValueError(text)
                return text
    ''')
    assert contains(binding_value, cls, cls.replace('mode = "lenient"', 'mode = "strict"'))
    const = src('''
        LEVEL = "warn"


        def loud(level):
            return level in ("error", "critical")
    ''')
    assert results(binding_value, const) == set()  # nothing compares LEVEL itself


def test_binding_value_leaves_body_literals_keys_and_docstrings_alone() -> None:
    before = src('''
        UNITS = {"h": 3600, "m": 60}


        def f(x):
            """Doc."""
            limit = 10
            if x == 5:
                return f"{x}"
            return limit
    ''')
    changed = results(binding_value, before)
    assert all('"h"' in c and '"m"' in c and "limit = 10" in c and '"""Doc."""' in c for c in changed)


def test_return_offset_appends_and_removes_one() -> None:
    assert contains(return_offset, "def f(xs):\n    return len(xs)\n", "def f(xs):\n    return len(xs) - 1\n")
    assert contains(return_offset, "def f(xs):\n    return len(xs)\n", "def f(xs):\n    return len(xs) + 1\n")
    assert results(return_offset, "def f(n):\n    return n + 1\n") == {"def f(n):\n    return n\n"}
    assert contains(return_offset, "def f(a, b):\n    return a << b\n", "def f(a, b):\n    return (a << b) - 1\n")


def test_return_offset_on_each_element_of_a_returned_tuple() -> None:
    before = "def f(i, n):\n    return (i, n - i)\n"
    assert contains(return_offset, before, "def f(i, n):\n    return (i + 1, n - i)\n")
    assert contains(return_offset, before, "def f(i, n):\n    return (i, n - i - 1)\n")
    assert contains(return_offset, "def f(i, s):\n    return i + 1, s\n", "def f(i, s):\n    return i, s\n")
    assert results(return_offset, 'def f(s):\n    return ("a", [s])\n') == set()


def test_return_offset_needs_something_that_may_be_a_number() -> None:
    for body in ('return "a"', "return [x]", "return x < y", "return 0", "return not x", "return name.lower()",
                 "return None"):
        assert results(return_offset, f"def f(x, y, name):\n    {body}\n") == set(), body
    words = "def f(text):\n    words = text.split()\n    return words\n"
    assert results(return_offset, words) == set()


def test_argument_offset_knows_a_closures_number_from_the_function_around_it() -> None:
    before = src('''
        def padded(items, n):
            if n < 1:
                raise ValueError
            def chunks():
                yield take(items, n)
            return chunks()
    ''')
    off = Offsets(before)
    found = [m for node in walk(parse(before).root_node) for m in argument_offset(node, off) if "n - 1" in m.summary]
    assert found and found[0].weight == 1.0  # `n < 1` in `padded`: a number, not a name of unknown kind


def test_a_loop_counter_is_a_number() -> None:
    before = src('''
        def linecol(text, idx):
            for i, line in enumerate(text.splitlines()):
                if len(line) > idx:
                    return (i, idx)
            return [j for j, _ in enumerate(text)], [k for k in range(3)]
    ''')
    off = Offsets(before)
    weights = {m.summary: m.weight for node in walk(parse(before).root_node) for m in return_offset(node, off)}
    assert weights["return ..i -> return ..i + 1"] == 1.0  # enumerate's index, not a name of unknown kind
    assert {"i", "j", "k"} <= facts(parse(before).root_node.named_children[0]).numbers


def test_a_sum_or_difference_with_a_known_number_is_a_number() -> None:
    before = src('''
        def after_point(string):
            pos = string.rfind(".")
            pos = lookup(string) if pos < 0 else pos
            return len(string) - pos
    ''')
    off = Offsets(before)
    weights = {m.summary: m.weight for node in walk(parse(before).root_node) for m in return_offset(node, off)}
    assert weights["return len(string) - pos -> return len(string) - pos - 1"] == 1.0
    text = "def f(s, t):\n    return s * t\n"  # a product of unknowns may be a repeated string
    weights = {m.summary: m.weight for node in walk(parse(text).root_node) for m in return_offset(node, Offsets(text))}
    assert weights and max(weights.values()) < 1.0


def test_argument_offset_on_calls_but_not_on_bounds_or_strings() -> None:
    before = "def f(items, i, x):\n    items.insert(i, x)\n"
    assert contains(argument_offset, before, "def f(items, i, x):\n    items.insert(i + 1, x)\n")
    assert contains(argument_offset, "def f(n):\n    return g(n - 1)\n", "def f(n):\n    return g(n)\n")
    assert contains(argument_offset, "def f(s, w):\n    return s.ljust(w * 2)\n", "def f(s, w):\n    return s.ljust(w * 2 + 1)\n")
    assert results(argument_offset, "def f(n):\n    return range(n)\n") == set()  # bound_nudge's
    assert results(argument_offset, 'def f(s):\n    return g("x", s.split(), [1])\n') == set()


def test_operand_offset_inside_a_product_but_not_on_literals_or_strings() -> None:
    before = "def f(nth):\n    return abs(nth) * 7\n"
    assert contains(operand_offset, before, "def f(nth):\n    return (abs(nth) - 1) * 7\n")
    assert contains(operand_offset, before, "def f(nth):\n    return (abs(nth) + 1) * 7\n")
    assert results(operand_offset, "def f(n):\n    return (n - 1) * 7\n") == {"def f(n):\n    return n * 7\n"}
    assert results(operand_offset, 'def f(x):\n    return "%s!" % x\n') == set()
    assert results(operand_offset, "def f(n):\n    return n + 7\n") == set()  # return_offset's


BISECT = src('''
    def first_false(flags):
        lo, hi = 0, len(flags)
        while lo < hi:
            mid = (lo + hi) // 2
            if flags[mid]:
                lo = mid
            else:
                hi = mid
        return lo
''')


def test_assignment_offset_moves_a_bound_by_one_and_takes_one_back() -> None:
    assert contains(assignment_offset, BISECT, BISECT.replace("lo = mid\n", "lo = mid + 1\n"))
    assert contains(assignment_offset, BISECT, BISECT.replace("hi = mid\n", "hi = mid - 1\n"))
    assert results(assignment_offset, "def f(n):\n    end = n - 1\n    return end\n") == {
        "def f(n):\n    end = n\n    return end\n"}
    self_pos = "class C:\n    def f(self, n):\n        self.pos = n\n"
    assert contains(assignment_offset, self_pos, self_pos.replace("= n", "= n + 1"))


def test_assignment_offset_leaves_what_is_no_number_alone() -> None:
    for body in ('x = "a"', "x = [y]", "x = y < 1", "x = 3", "a, b = y, 1", "x = y.split()", "x = None",
                 "x = not y"):
        assert results(assignment_offset, f"def f(y):\n    {body}\n    return x\n") == set(), body


def test_offsets_rank_below_the_one_token_operators() -> None:
    text = "def f(xs, k):\n    n = len(xs)\n    return g(n, k) if k < n else n\n"
    order = sorted(single_candidates("m.py", text, {3: 1.0}, {}), key=lambda c: -c.score)
    first_offset = next(i for i, c in enumerate(order) if c.operator.endswith("_offset"))
    assert order[0].operator == "comparison_swap" and first_offset > 5


FUNCTION_KEY = src('''
    from collections import defaultdict


    def normalize(name):
        return name.lower()


    def group(rows):
        totals = defaultdict(int)
        for row in rows:
            key = row["name"]
            totals[key] += row["amount"]
        return totals
''')


def test_a_local_is_never_replaced_by_a_function_class_or_module() -> None:
    changed = results(ops.replace_identifier, FUNCTION_KEY)
    assert changed and not any("totals[normalize]" in c or "totals[defaultdict]" in c for c in changed)
    assert any("totals[row]" in c for c in changed)  # another local still is


def test_returns_of_values_are_never_functions() -> None:
    text = src('''
        import os


        def helper():
            return 1


        def f(items):
            count = len(items)
            return count
    ''')
    changed = results(ops.replace_return, text) | results(ops.insert_return, text)
    assert changed and not any(f"return {name}\n" in c for c in changed for name in ("helper", "os", "f"))


def test_types_known_from_annotations_literals_and_constructors() -> None:
    text = src('''
        from .models import Row, LIMIT


        class Point:
            pass


        def f(items: list, count: int, label="x", origin: Point = None):
            seen = set()
            total = 0
            p = Point()
            n = len(items)
            return total - count
    ''')
    at = next(n for n in walk(parse(text).root_node) if n.type == "identifier" and text_of(n) == "count"
              and n.parent is not None and n.parent.type == "binary_operator")
    kinds = {name: kind_of(name, at) for name in ("items", "count", "label", "origin", "seen", "total", "p", "n",
                                                 "Point", "Row", "LIMIT", "f", "undefined")}
    assert kinds == {"items": "list", "count": "number", "label": "str", "origin": "instance:Point", "seen": "set",
                     "total": "number", "p": "instance:Point", "n": "number", "Point": "class", "Row": "import",
                     "LIMIT": "value", "f": "function", "undefined": ""}
    # `total - count`: another number fits, a list, a set, a string or a function does not.
    assert may_stand_for(at, "n") and may_stand_for(at, "LIMIT")
    assert not any(may_stand_for(at, name) for name in ("items", "seen", "label", "f", "Point", "Row"))



def test_type_variables_aliases_and_cls_are_types_not_values() -> None:
    """Typed code names its types at module level (`T = TypeVar(...)`, `Pair = Tuple[int, int]`, `type Row =
    ...`): none of them, nor a classmethod's `cls`, ever stands where a number is read."""
    text = src('''
        from typing import Callable, TypeAlias, TypeVar, Union

        T_cmp = TypeVar("T_cmp", tuple, str, int)
        Comparator = Callable[["Version", int], bool]
        Comparable = Union["Version", str]
        Pairs = dict[str, int]
        Key: TypeAlias = "tuple[int, int]"
        type Row = tuple[int, str]
        LIMIT = 10

        class Version:
            @classmethod
            def make(cls, index: int, start: int) -> int:
                stop = start
                return stop + index
    ''')
    at = next(n for n in walk(parse(text).root_node) if n.type == "identifier" and text_of(n) == "start"
              and n.parent is not None and n.parent.type == "assignment")
    kinds = {name: kind_of(name, at) for name in ("T_cmp", "Comparator", "Comparable", "Pairs", "Key", "Row", "cls",
                                                 "LIMIT", "index")}
    assert kinds == {"T_cmp": "class", "Comparator": "class", "Comparable": "class", "Pairs": "class", "Key": "class",
                     "Row": "class", "cls": "class", "LIMIT": "number", "index": "number"}
    assert may_stand_for(at, "index") and may_stand_for(at, "LIMIT")
    assert not any(may_stand_for(at, name) for name in ("T_cmp", "Comparator", "Comparable", "Pairs", "Key", "Row", "cls"))

def test_an_instance_attribute_has_the_type_its_class_gives_it() -> None:
    """`self._minor` is a number when the class says so (a property `-> int` returning it, a field `x: int`,
    `self.n = len(...)`, `self.count += 1`): a `+ 1` on it is as likely as on a local number. What the class
    says in two ways, or not at all, stays unknown."""
    from fixloop.engines.repair.kinds import expression_type

    text = src('''
        class Version:
            label: str
            size: int = 0

            def __init__(self, minor, parts):
                self._minor = minor
                self.count = 0
                self.width = len(parts)
                self.mixed = "unset"
                self.mixed = 3
                self.unsaid = parts[0]
                self.copy = self.unsaid  # read while the class is read: not known, and no endless lookup
                self.unsaid = self.copy

            @property
            def minor(self) -> int:
                return self._minor

            def bump(self):
                self.count += 1
                return Version(self._minor, self.label, self.size, self.count, self.width, self.mixed, self.unsaid, other.size, self.copy)
    ''')
    call = next(n for n in walk(parse(text).root_node) if n.type == "call" and text_of(n).startswith("Version(self."))
    args = call.child_by_field_name("arguments")
    kinds = {text_of(a): expression_type(a) for a in args.named_children}  # type: ignore[union-attr]
    assert kinds == {"self._minor": "number", "self.label": "str", "self.size": "number", "self.count": "number",
                     "self.width": "number", "self.mixed": "value", "self.unsaid": "value", "other.size": "value", "self.copy": "value"}
    off = Offsets(text)
    weights = {m.summary.split("..")[1]: m.weight for node in walk(parse(text).root_node) if node == call
               for m in argument_offset(node, off)}
    assert weights["self._minor"] == 1.0 and "self.label" not in weights and weights["other.size"] < 1.0
    # A getter's `return self._minor` passes on what was stored: its `+ 1` weighs as little as an unknown's.
    getter = [m for node in walk(parse(text).root_node) for m in return_offset(node, off) if "self._minor" in m.summary]
    assert getter and all(m.weight < 0.5 for m in getter)


def test_type_checks_at_the_place_of_use() -> None:
    text = src('''
        def f(words: list, name: str, i: int, table: dict, flag: bool):
            a = words[i]
            b = table[name]
            c = len(words)
            return a, b, c
    ''')
    root = parse(text).root_node
    index = next(n for n in walk(root) if text_of(n) == "i" and n.parent is not None and n.parent.type == "subscript")
    key = next(n for n in walk(root) if text_of(n) == "name" and n.parent is not None and n.parent.type == "subscript")
    measured = next(n for n in walk(root) if text_of(n) == "words" and n.parent is not None
                    and n.parent.type == "argument_list")
    assert not may_stand_for(index, "name") and may_stand_for(index, "flag")  # a list's index is a number
    assert not may_stand_for(key, "words") and may_stand_for(key, "i")  # a dict's key is hashable
    assert not may_stand_for(measured, "i") and may_stand_for(measured, "name")  # len() of a number


def test_lines_run_at_import_get_value_edits_not_statement_edits() -> None:
    text = src('''
        from typing import Dict


        class Limits:
            calls: int = 4
            table: Dict[str, int] = {}
    ''')
    found = single_candidates("m.py", text, {5: 1.0, 6: 1.0}, {})
    assert {"4 -> 5", "4 -> 3"} <= {c.summary for c in found}
    assert not {c.operator for c in found} & {"augmented_swap", "delete_statement", "insert_control"}
    assert not any("str -" in c.summary or "int -" in c.summary for c in found)  # nothing inside an annotation


def test_none_check_between_a_truth_test_and_a_test_for_none() -> None:
    before = src('''
        def intcomma(value, ndigits=None):
            if ndigits:
                value = round(value, ndigits)
            if sep is not None and not value.sign:
                return value
            return value if sep else 0
    ''')
    assert contains(none_check, before, before.replace("if ndigits:", "if ndigits is not None:"))
    assert contains(none_check, before, before.replace("if sep is not None and", "if sep and"))
    assert contains(none_check, before, before.replace("not value.sign", "value.sign is None"))
    assert contains(none_check, before, before.replace("if sep else", "if sep is not None else"))
    plain = src('''
        def f(a, b):
            if a < b:
                return a + b
            return b
    ''')
    assert results(none_check, plain) == set()  # a comparison or arithmetic is not a truth test


def test_format_precision_nudges_the_numbers_written_in_a_format() -> None:
    before = 'def size(n, format: str = "%.2f"):\n    return format % n + "{:>8}".format(n) + "3.5 of 10%"\n'
    assert contains(format_precision, before, before.replace('"%.2f"', '"%.1f"'))
    assert contains(format_precision, before, before.replace('"{:>8}"', '"{:>9}"'))
    assert not any("3.5" not in r or "10%" not in r for r in results(format_precision, before))  # prose is not a format


def test_a_factors_offset_comes_after_the_operators_of_its_line() -> None:
    """`x * 2 - 1` -> `(x + 1) * 2 - 1` passes what `x * 2 + 1` passes: the plain fix must come first."""
    order = varied(single_candidates("m.py", "def f(x):\n    return x * 2 - 1\n", {2: 1.0}, {}))
    summaries = [c.summary for c in order]
    assert summaries.index("- -> +") < min(i for i, c in enumerate(order) if c.operator == "operand_offset")



def test_each_comparison_of_a_line_gets_its_likeliest_swap_before_any_gets_its_second() -> None:
    text = src('''
        def leap(year):
            return (year % 400) == 0 or (year % 100) == 0 and (year % 4) == 0
    ''')
    order = [c.summary for c in varied(single_candidates("m.py", text, {2: 1.0}, {})) if c.operator == "comparison_swap"]
    firsts = [i for i, summary in enumerate(order) if summary.endswith("== -> !=")]
    assert len(firsts) == 3 and firsts == [0, 1, 2], order


def test_a_one_taken_away_or_added_is_dropped_before_it_is_doubled() -> None:
    text = "def chunks(seq, n):\n    return [seq[i : i + n - 1] for i in range(0, len(seq), n)]\n"
    nudges = [c.summary for c in varied(single_candidates("m.py", text, {2: 1.0}, {})) if c.operator == "integer_nudge"]
    assert nudges[0].endswith("i + n - 1 -> i + n"), nudges

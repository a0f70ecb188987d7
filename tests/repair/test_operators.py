"""Each mutation operator on its own: real tree-sitter, real text edits, every result must parse."""

from __future__ import annotations

import functools
import textwrap

import pytest

from fixloop.core.patch import apply_edits
from fixloop.engines.repair import operators as ops
from fixloop.kit.syntax import Offsets, names_in_scope, parse, parses, walk


def results(operator: ops.Operator, source: str) -> set[str]:
    source = textwrap.dedent(source).lstrip("\n")
    off = Offsets(source)
    out = set()
    for node in walk(parse(source).root_node):
        for m in operator(node, off):
            after = apply_edits(source, [m.edit])
            assert after != source
            out.add(after)
    return out


def replacements_at(source: str, line: int, column: int) -> list[str]:
    """What replace_identifier makes of the name at (line, column), 0-based."""
    node = next(n for n in walk(parse(source).root_node) if n.type == "identifier" and n.start_point == (line, column))
    return [m.summary for m in ops.replace_identifier(node, Offsets(source))]


def contains(operator: ops.Operator, source: str, expected: str) -> bool:
    return textwrap.dedent(expected) in results(operator, source)


def test_comparison_swap() -> None:
    assert contains(ops.comparison_swap, "ok = a < b\n", "ok = a <= b\n")
    assert len(results(ops.comparison_swap, "ok = a < b\n")) == 5


def test_a_comparison_with_a_singleton_or_a_type_tries_identity_first() -> None:
    def first(source: str) -> str:
        node = next(n for n in walk(parse(source).root_node) if n.type == "comparison_operator")
        return apply_edits(source, [next(iter(ops.comparison_swap(node, Offsets(source)))).edit])

    assert first("ok = a == None\n") == "ok = a is None\n"
    assert first("ok = a != False\n") == "ok = a is not False\n"
    assert first("ok = type(a) == type(b)\n") == "ok = type(a) is type(b)\n"
    assert not any(" is " in r for r in results(ops.comparison_swap, "ok = a == b\n"))  # values: no identity


def test_arithmetic_swap() -> None:
    assert contains(ops.arithmetic_swap, "x = a - b\n", "x = a + b\n")
    assert contains(ops.arithmetic_swap, "x = a / b\n", "x = a // b\n")


def test_augmented_swap() -> None:
    assert contains(ops.augmented_swap, "x -= 1\n", "x += 1\n")
    assert contains(ops.augmented_swap, "total = x\n", "total += x\n")


def test_boolean_swap() -> None:
    assert results(ops.boolean_swap, "ok = a and b\n") == {"ok = a or b\n"}


def test_integer_nudge() -> None:
    assert results(ops.integer_nudge, "x = 10\n") == {"x = 11\n", "x = 9\n"}
    assert contains(ops.integer_nudge, "y = xs[-1]\n", "y = xs[-2]\n")
    # A one added or taken away goes with its sign, as a person writes it: never `n + 0`.
    assert results(ops.integer_nudge, "y = islice(seq, n + 1)\n") == {"y = islice(seq, n + 2)\n", "y = islice(seq, n)\n"}
    assert results(ops.integer_nudge, "y = n - 1\n") == {"y = n - 2\n", "y = n\n"}
    assert results(ops.integer_nudge, "y = 1 + n\n") == {"y = 2 + n\n", "y = n\n"}
    assert results(ops.integer_nudge, "y = 1 - n\n") == {"y = 2 - n\n", "y = 0 - n\n"}


def test_bound_nudge_range_slice_and_index() -> None:
    assert contains(ops.bound_nudge, "for i in range(n):\n    pass\n", "for i in range(n - 1):\n    pass\n")
    assert contains(ops.bound_nudge, "y = s[:k]\n", "y = s[:k + 1]\n")
    assert contains(ops.bound_nudge, "y = s[n - i]\n", "y = s[n - i - 1]\n")
    assert results(ops.bound_nudge, "y = s[0]\n") == set()


def test_drop_operand() -> None:
    assert contains(ops.drop_operand, "y = len(xs) - 1\n", "y = len(xs)\n")


def test_swap_operands_only_when_order_matters() -> None:
    assert contains(ops.swap_operands, "d = end - start\n", "d = start - end\n")
    assert results(ops.swap_operands, "s = a + b\n") == set()


def test_swap_arguments() -> None:
    assert results(ops.swap_arguments, "q = divmod(60, total)\n") == {"q = divmod(total, 60)\n"}
    assert results(ops.swap_arguments, "f(a, key=b)\n") == set()


def test_replace_identifier_uses_names_in_scope() -> None:
    src = """
    def merge(a, b):
        i = j = 0
        return b[i:]
    """
    assert contains(ops.replace_identifier, src, "def merge(a, b):\n    i = j = 0\n    return b[j:]\n")
    # a parameter or a called function's name is never the thing replaced
    assert all("def merge(a, b)" in r for r in results(ops.replace_identifier, src))


def test_replace_attribute() -> None:
    src = """
    class R:
        def __init__(self, w, h):
            self.width = w
            self.height = h

        def area(self):
            return self.width * self.width
    """
    assert any("return self.width * self.height" in r for r in results(ops.replace_attribute, src))


def test_sibling_call() -> None:
    assert results(ops.sibling_call, "m = max(xs)\n") == {"m = min(xs)\n"}
    assert contains(ops.sibling_call, "out.append(x)\n", "out.extend(x)\n")


def test_flip_boolean() -> None:
    assert results(ops.flip_boolean, "f(reverse=False)\n") == {"f(reverse=True)\n"}


def test_negate_condition_and_remove_not() -> None:
    assert contains(ops.negate_condition, "if ok(a):\n    pass\n", "if not (ok(a)):\n    pass\n")
    assert contains(ops.negate_condition, "if not ok(a):\n    pass\n", "if ok(a):\n    pass\n")
    assert results(ops.remove_not, "x = not a\n") == {"x = a\n"}


def test_drop_clause_widens_or_narrows() -> None:
    assert results(ops.drop_clause, "ok = a < 1 and b\n") == {"ok = a < 1\n", "ok = b\n"}


def test_replace_return() -> None:
    src = "def f(xs):\n    total = 0\n    return xs\n"
    found = results(ops.replace_return, src)
    assert "def f(xs):\n    total = 0\n    return total\n" in found
    assert "def f(xs):\n    total = 0\n    return []\n" in found


def test_delete_statement_keeps_a_block_valid() -> None:
    assert contains(ops.delete_statement, "def f():\n    g()\n", "def f():\n    pass\n")
    assert contains(ops.delete_statement, "def f():\n    g()\n    h()\n", "def f():\n    h()\n")


def test_insert_control() -> None:
    src = "def f(xs):\n    for x in xs:\n        found = x\n    return found\n"
    found = results(ops.insert_control, src)
    assert "def f(xs):\n    for x in xs:\n        found = x\n        break\n    return found\n" in found


def test_insert_return_after_a_loop() -> None:
    src = "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n"
    assert contains(ops.insert_return, src, src + "    return out\n")


def test_insert_return_never_in_a_generator_after_every_path_returned_or_of_a_dunder() -> None:
    generator = "def f(xs):\n    out = []\n    for x in xs:\n        yield x\n"
    assert results(ops.insert_return, generator) == set()
    returned = "def f(n):\n    k = n\n    if n < 0:\n        return 0\n    elif n:\n        raise ValueError\n    else:\n        return k\n"
    assert results(ops.insert_return, returned) == set()
    open_end = returned.replace("    else:\n        return k\n", "")
    assert contains(ops.insert_return, open_end, open_end + "    return k\n")
    dunder = "__all__ = ['f']\n\n\ndef f(xs):\n    for x in xs:\n        print(x)\n"
    assert not any("return __all__" in r for r in results(ops.insert_return, dunder))


@pytest.mark.parametrize("operator", ops.OPERATORS, ids=lambda o: o.__name__)
def test_every_operator_is_named_and_has_a_prior(operator: ops.Operator) -> None:
    assert operator.__name__ in ops.DEFAULT_PRIORS


def test_results_parse_on_a_realistic_module() -> None:
    src = """
    import math

    def area(r, scale=1):
        if r < 0 or scale <= 0:
            raise ValueError(r)
        total = 0
        for i in range(len(xs) - 1):
            total += xs[i] * 2
        return math.pi * r ** 2 / scale
    """
    made = 0
    for operator in ops.OPERATORS:
        for after in results(operator, src):
            made += 1
            assert isinstance(after, str)
    assert made > 60
    assert sum(parses(a) for op in ops.OPERATORS for a in results(op, src)) > 50


def test_replace_identifier_tries_look_alike_names_first() -> None:
    src = "def d(x1, x2):\n    total = 0\n    dx = x1 - x2\n    dy = x2 - x1\n    return dx * dy\n"
    off = Offsets(src)
    node = next(n for n in walk(parse(src).root_node) if n.type == "identifier" and n.start_point == (4, 16))
    variants = list(ops.replace_identifier(node, off))
    assert variants[0].summary == "dy -> dx" and variants[0].weight > variants[-1].weight


def test_replace_identifier_prefers_a_name_of_the_same_role() -> None:
    src = "def merge(a, b):\n    out = []\n    i = j = 0\n    out.extend(b[i:])\n"
    off = Offsets(src)
    node = next(n for n in walk(parse(src).root_node) if n.type == "identifier" and n.start_point == (3, 17))
    assert next(iter(ops.replace_identifier(node, off))).summary == "i -> j"


def test_replace_identifier_never_reads_a_local_before_the_function_binds_it() -> None:
    # The statement's own target is unbound where its right side reads it; a loop may bring a later
    # binding round, a comprehension has its own scope: those stay.
    src = ("def path_of(self, *base):\n    params = list(base[1:])\n    path = join(base[0], *base)\n"
           "    for i in base:\n        total = total + i\n    later = 1\n    return path\n")
    summaries = functools.partial(replacements_at, src)
    splat = summaries(2, 26)
    assert "base -> params" in splat[:2] and not {"base -> path", "base -> later", "base -> total"} & set(splat)
    assert "i -> total" in summaries(4, 24)  # inside the loop: bound by the iteration before
    assert "path -> later" in summaries(6, 11)


def test_replace_identifier_knows_what_imports_bind_and_what_a_place_takes() -> None:
    # `from .api import Base` binds Base, not api; `import a.b` binds a. A list has no `.width`, a class or
    # a module is never subscripted or splatted, and `typing`'s exports are classes whatever their case.
    src = ("from .api import Base\nfrom os import path as p\nfrom typing import TYPE_CHECKING, IO\nimport a.b\n"
           "__all__ = ['Box']\nLIMIT = 3\n\n\nclass Box(Base):\n    def area(self, items, other):\n"
           "        first = items[0]\n        return self.width * first + len(*items)\n")
    tree = parse(src).root_node
    summaries = functools.partial(replacements_at, src)
    receiver, subscripted, splatted = summaries(11, 15), summaries(10, 16), summaries(11, 41)
    in_scope = names_in_scope(next(n for n in walk(tree) if n.start_point == (10, 16)))
    assert set(in_scope[-5:]) == {"Base", "p", "TYPE_CHECKING", "IO", "a"}  # imported names after the defined ones
    assert "self -> other" in receiver and "self -> LIMIT" not in receiver and "self -> __all__" not in receiver
    assert not any(s.endswith(("-> api", "-> os", "-> path")) for s in receiver + subscripted + splatted)
    assert "items -> other" in subscripted and "items -> LIMIT" not in subscripted
    assert not {"items -> Base", "items -> Box", "items -> p", "items -> IO", "items -> a"} & set(subscripted + splatted)


def test_replace_identifier_puts_a_receiver_only_where_the_attribute_is_known() -> None:
    # `self.function` -> `plugin.function` cannot be meant when nothing says `plugin` has one; another
    # instance of the method's own class (annotated, a dunder's operand, `other`) may stand for `self`.
    src = ("class Box:\n    def __eq__(self, left):\n        return self.count == self.count\n"
           "    def same(self, box: 'Box', other, boxes: 'BoxList'):\n        return self.count + other.weight\n"
           "    def put(self, plugin, function):\n        self.function = function\n        self.size = plugin.size\n")
    summaries = functools.partial(replacements_at, src)
    assert "self -> left" in summaries(2, 15)
    assert {"self -> box", "self -> other"} <= set(summaries(4, 15)) and "self -> boxes" not in summaries(4, 15)
    assert "self -> plugin" not in summaries(6, 8)
    assert "self -> plugin" in summaries(7, 8)  # the file uses `plugin.size`
    assert "other -> self" not in summaries(4, 28)  # nothing uses `self.weight`


def test_replace_identifier_leaves_a_name_given_to_the_place_of_its_name() -> None:
    src = "class Box:\n    def __init__(self, size, width):\n        self.size = size\n        draw(size=size)\n        self.area = size\n"
    summaries = functools.partial(replacements_at, src)
    assert summaries(2, 20) == [] and summaries(3, 18) == []
    assert "size -> width" in summaries(4, 20)
    targets = results(ops.replace_attribute, src)
    assert targets and all("width):\n        self.size = size\n" in r and "self.area = size" not in r for r in targets)


def test_swap_arguments_follows_the_parameters_names() -> None:
    # An argument named after the other parameter was passed in the wrong place; arguments that match
    # their own parameters are left for last; a callee defined elsewhere says nothing.
    src = ("def discount(price, rate, /):\n    return price * (1 - rate)\n\n\n"
           "class Room:\n    def blend(self, outside, inside, share):\n        return outside * share\n\n"
           "    @staticmethod\n    def mix(low, high):\n        return low\n\n"
           "    def feel(self, outside, inside, rate, base_price):\n"
           "        return self.blend(inside, outside, 0.25) + discount(rate, self.base_price) + "
           "self.mix(self.low, self.high) + elsewhere(inside, outside)\n")
    off = Offsets(src)
    weights = [(m.summary, m.weight) for n in walk(parse(src).root_node) for m in ops.swap_arguments(n, off)]
    assert ("swap rate and self.base_price", 3.0) in weights and ("swap self.low and self.high", 0.3) in weights
    assert ("swap outside and 0.25", 1.0) in weights
    # blend's pair (3.0) and elsewhere's (1.0: no definition here)
    assert sorted(w for summary, w in weights if summary == "swap inside and outside") == [1.0, 3.0]


def test_a_missing_not_on_one_operand_in_a_filter_or_a_return_and_in_for_not_in() -> None:
    src = ("def f(xs, pantry, c):\n    a = [i for i in xs if i.name in pantry and not i.optional]\n"
           "    b = [i for i in xs if i.ok]\n    return c.cancelled and c.index(1) < c.index(2) or c.x is None\n")
    negated = results(ops.negate_condition, src)
    assert src.replace("return c.cancelled", "return not c.cancelled") in negated
    assert src.replace("if i.ok]", "if not (i.ok)]") in negated
    assert not any("not c.index" in r or "not i.name" in r or "not not" in r for r in negated)  # comparison_swap's
    swapped = results(ops.comparison_swap, src)
    assert src.replace("i.name in pantry", "i.name not in pantry") in swapped
    assert src.replace("c.x is None", "c.x is not None") in swapped

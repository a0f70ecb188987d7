"""Operand order and augmented assignment operators: real tree-sitter, real edits, results parse."""

from __future__ import annotations

import ast
import textwrap

from fixloop.engines.repair import operators as ops
from fixloop.engines.repair import reorder
from fixloop.kit.syntax import parses

from .test_operators import contains, results


def test_swap_operands_every_ordered_operator() -> None:
    for op in ("-", "/", "//", "%", "**", "<<", ">>"):
        assert results(reorder.swap_operands, f"x = a {op} b\n") == {f"x = b {op} a\n"}, op


def test_swap_operands_keeps_the_grouping() -> None:
    # `a - b - c` is `(a - b) - c`: the outer swap must not turn it into `(c - a) - b`
    assert contains(reorder.swap_operands, "x = a - b - c\n", "x = c - (a - b)\n")
    assert contains(reorder.swap_operands, "x = a - b - c\n", "x = b - a - c\n")
    assert contains(reorder.swap_operands, "x = a % (b + 1)\n", "x = (b + 1) % a\n")
    assert contains(reorder.swap_operands, "x = a - b * c\n", "x = b * c - a\n")
    for after in results(reorder.swap_operands, "x = a - b - c ** d ** e\n"):
        assert parses(after)


def test_swapped_operands_mean_the_swap() -> None:
    env = {"a": 7, "b": 3, "c": 2}
    meanings = {env["c"] - (env["a"] - env["b"]), (env["b"] - env["a"]) - env["c"]}
    values = {eval(compile(ast.parse(after.split("=", 1)[1].strip(), mode="eval"), "<t>", "eval"), {}, env)
              for after in results(reorder.swap_operands, "x = a - b - c\n")}
    assert values == meanings


def test_comparisons_are_not_operand_order() -> None:
    assert results(reorder.swap_operands, "ok = a < b\n") == set()
    assert results(reorder.concat_order, "ok = a < b\n") == set()


def test_concat_order_on_strings_and_lists_only() -> None:
    src = """
    def rev(s):
        out = ""
        for ch in s:
            out = out + ch
        return out
    """
    assert any("out = ch + out" in r for r in results(reorder.concat_order, src))
    assert contains(reorder.concat_order, "p = path + [node]\n", "p = [node] + path\n")
    assert results(reorder.concat_order, "i = i + 1\n") == set()
    assert results(reorder.concat_order, "n = len(a) + k\n") == set()


def test_concat_order_weighs_evidence() -> None:
    def weight(src: str) -> float:
        from fixloop.kit.syntax import Offsets, parse, walk

        off = Offsets(src)
        return max(m.weight for n in walk(parse(src).root_node) for m in reorder.concat_order(n, off))

    assert weight("def f(a: str, b):\n    return a + b\n") == 1.0
    assert weight("def f(a, b):\n    return a + b\n") < 0.5  # numbers, most likely


def test_augmented_order_prepends() -> None:
    src = "def bits(n):\n    out = ''\n    while n:\n        out += str(n % 2)\n        n //= 2\n    return out\n"
    found = results(reorder.augmented_order, src)
    assert any("out = str(n % 2) + out" in r for r in found)
    assert any("n = 2 // n" in r for r in found)
    assert results(reorder.augmented_order, "total += 1\n") == set()  # numbers commute
    assert contains(reorder.augmented_order, "x -= a - b\n", "x = (a - b) - x\n")


def test_augmented_swap_covers_every_operator() -> None:
    for op in ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="):
        found = results(reorder.augmented_swap, f"x {op} y\n")
        assert "x = y\n" in found and len(found) >= 2, op  # a neighbour, and the plain assignment
    assert contains(reorder.augmented_swap, "x &= mask\n", "x |= mask\n")
    assert contains(reorder.augmented_swap, "x <<= 1\n", "x >>= 1\n")


def test_plain_assignment_becomes_augmented_on_any_target() -> None:
    plain = set(reorder.AUGMENTED_ALL["="])
    assert len(plain) == 6
    found = results(reorder.augmented_swap, "self.total = amount\n")
    assert {f"self.total {op} amount\n" for op in plain} <= found
    assert contains(reorder.augmented_swap, "counts[k] = 1\n", "counts[k] += 1\n")
    assert results(reorder.augmented_swap, "a = b = 0\n") == set()
    assert results(reorder.augmented_swap, "x: int = 0\n") == set()
    assert results(reorder.augmented_swap, "a, b = b, a\n") == set()


def test_plain_to_augmented_tries_the_common_operators_first() -> None:
    from fixloop.kit.syntax import Offsets, parse, walk

    src = "total = x\n"
    off = Offsets(src)
    found = [m for n in walk(parse(src).root_node) for m in reorder.augmented_swap(n, off)]
    assert found[0].summary == "= -> +=" and found[0].weight > found[-1].weight


def test_bitwise_swap() -> None:
    assert results(reorder.bitwise_swap, "x = a & b\n") == {"x = a | b\n", "x = a ^ b\n"}
    assert contains(reorder.bitwise_swap, "x = 2 ^ n\n", "x = 2 ** n\n")
    assert contains(reorder.bitwise_swap, "x = n >> 1\n", "x = n << 1\n")


def test_new_operators_are_registered_with_priors() -> None:
    for operator in (reorder.concat_order, reorder.augmented_order, reorder.bitwise_swap,
                     reorder.swap_operands, reorder.augmented_swap):
        assert operator in ops.OPERATORS and operator.__name__ in ops.DEFAULT_PRIORS


def test_every_result_parses() -> None:
    src = textwrap.dedent("""
    def f(a, b, s: str, xs):
        s += "x"
        xs = xs + [a]
        a -= b ** 2
        b >>= a & 3
        return a - b - (a % b) // 2, s + "y" + s
    """)
    made = 0
    for operator in reorder.REORDER_OPERATORS + (reorder.swap_operands, reorder.augmented_swap):
        for after in results(operator, src):
            made += 1
            assert parses(after), after
    assert made > 25

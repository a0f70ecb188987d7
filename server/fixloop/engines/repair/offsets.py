"""`+ 1` / `- 1` on what a function returns and on what a call is given: the off-by-one outside a bound.

- `return_offset`: `return len(xs)` -> `return len(xs) - 1` (or `+ 1`); `return n + 1` -> `return n`; each
  element of a returned tuple alike (`return (i, col)` -> `return (i + 1, col)`).
- `argument_offset`: `f(n)` -> `f(n + 1)` (or `- 1`), keyword values too; `f(n - 1)` -> `f(n)`.
- `operand_offset`: `abs(n) * 7` -> `(abs(n) - 1) * 7` (or `+ 1`); `(n - 1) * 7` -> `n * 7`: the offset
  inside a product, a quotient or a remainder, where appending it to the whole would scale it.
- `assignment_offset`: `lo = mid` -> `lo = mid + 1` (or `- 1`); `hi = mid - 1` -> `hi = mid`: a bound that a
  loop moves (a binary search that never ends, a window one short), a position kept in a name.

`bound_nudge` already covers range() bounds, slices and subscripts, and `integer_nudge` literals. An
offset is appended only where a number may be: a known number (a length, a count, arithmetic, a name
the function uses as one) is worth 1.0, an expression of unknown type less, and what is known not to
be a number (a string, a collection, a comparison, a call that builds one) nothing: that keeps these
two from flooding the search with candidates no test could tell apart from noise.
"""

from __future__ import annotations

from typing import Iterator

from tree_sitter import Node

from fixloop.engines.repair.candidate import Mutation
from fixloop.engines.repair.context import enclosing_facts, role
from fixloop.engines.repair.kinds import expression_type
from fixloop.engines.repair.reorder import PRECEDENCE
from fixloop.kit.syntax import Offsets, text_of

UNKNOWN_NAME, UNKNOWN_CALL = 0.4, 0.3  # weights of an offset on an expression whose type is unknown
SKIPPED_CALLS = ("range", "print", "isinstance", "getattr", "setattr", "hasattr", "super", "type", "len")
NOT_NUMBERS = ("string", "concatenated_string", "list", "tuple", "dictionary", "set", "list_comprehension",
               "dictionary_comprehension", "set_comprehension", "generator_expression", "comparison_operator",
               "boolean_operator", "not_operator", "lambda", "none", "true", "false", "conditional_expression",
               "integer", "float", "await", "expression_list", "keyword_argument", "list_splat", "dictionary_splat",
               "parenthesized_expression", "unary_operator", "yield", "named_expression")


def return_offset(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "return_statement" or node.named_child_count != 1:
        return
    value = node.named_children[0]
    if value.type == "parenthesized_expression" and value.named_child_count == 1:
        value = value.named_children[0]
    if value.type in ("tuple", "expression_list"):  # `return (i, col)`: each element is a returned value
        for element in value.named_children:
            yield from _offsets("return_offset", element, off, "return ..")
        return
    # `return self._line` passes on a value stored elsewhere: its off-by-one is where it is computed, whatever
    # its type (a getter's `+ 1` fixes what reads it and breaks what stored it).
    yield from _offsets("return_offset", value, off, "return ", UNKNOWN_CALL if value.type == "attribute" else 1.0)


def argument_offset(node: Node, off: Offsets) -> Iterator[Mutation]:
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if node.type != "call" or fn is None or args is None or args.type != "argument_list" or text_of(fn) in SKIPPED_CALLS:
        return
    callee = text_of(fn).split(".")[-1]
    for arg in args.named_children:
        value = arg.child_by_field_name("value") if arg.type == "keyword_argument" else arg
        if value is not None:
            yield from _offsets("argument_offset", value, off, f"{callee}(..", after="..)")


def operand_offset(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "binary_operator" or _op(node) not in ("*", "/", "//", "%") or number_weight(node) <= 0:
        return  # `"%s" % x` formats a string: no factor in it
    for side in (node.child_by_field_name("left"), node.child_by_field_name("right")):
        if side is None or side.type in ("integer", "float"):
            continue  # a literal operand is integer_nudge's
        inner = side.named_children[0] if side.type == "parenthesized_expression" and side.named_child_count == 1 else side
        old = text_of(side)
        dropped = without_one(inner)
        if dropped is not None:
            yield Mutation.replacing("operand_offset", side, off, dropped, f"{old} -> {dropped}")
            continue
        weight = number_weight(side)
        if weight <= 0 or "\n" in old:
            continue
        for sign in ("-", "+"):
            new = f"({old} {sign} 1)"
            yield Mutation.replacing("operand_offset", side, off, new, f"{old} -> {new}", weight)


def assignment_offset(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "assignment":
        return
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type not in ("identifier", "attribute") or right.type in ("integer", "float"):
        return  # `a, b = ...` unpacks; a literal is integer_nudge's
    yield from _offsets("assignment_offset", right, off, f"{text_of(left).split('.')[-1]} = ")


def _offsets(operator: str, expr: Node, off: Offsets, before: str, cap: float = 1.0, after: str = "") -> Iterator[Mutation]:
    old = text_of(expr)
    if "\n" in old:
        return
    dropped = without_one(expr)
    if dropped is not None:
        yield Mutation.replacing(operator, expr, off, dropped, f"{before}{old}{after} -> {before}{dropped}{after}")
        return
    weight = min(number_weight(expr), cap)
    if weight <= 0:
        return
    base = old if expr.type != "binary_operator" or PRECEDENCE.get(_op(expr), 9) >= PRECEDENCE["+"] else f"({old})"
    for sign in ("-", "+"):
        new = f"{base} {sign} 1"
        yield Mutation.replacing(operator, expr, off, new, f"{before}{old}{after} -> {before}{new}{after}", weight)


def _op(expr: Node) -> str:
    op = expr.child_by_field_name("operator")
    return text_of(op) if op is not None else ""


def without_one(expr: Node) -> str | None:
    """`x + 1` / `x - 1` / `1 + x` without the one, or None."""
    if expr.type != "binary_operator" or _op(expr) not in ("+", "-"):
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    if left is None or right is None:
        return None
    if right.type == "integer" and text_of(right) == "1":
        return text_of(left)
    if left.type == "integer" and text_of(left) == "1" and _op(expr) == "+":
        return text_of(right)
    return None


def number_weight(expr: Node) -> float:
    """How likely `expr` is a number: 1.0 known, lower unknown, 0 known not to be."""
    if expr.type in NOT_NUMBERS:
        return 0.0
    kind = expression_type(expr)
    if kind == "number":
        return 1.0
    if kind not in ("value", ""):
        return 0.0  # a string, a collection, a bool, a function...
    if expr.type == "identifier":  # what the function, or one around it (a closure's name), uses it as
        found = next((r for f in enclosing_facts(expr) if (r := role(text_of(expr), f))), "")
        return 1.0 if found == "number" else 0.0 if found == "sequence" else UNKNOWN_NAME
    if expr.type == "binary_operator":
        return 0.6 if _op(expr) in ("+", "-", "*", "//", "%", "<<", ">>") else 0.0
    return UNKNOWN_CALL if expr.type in ("call", "attribute", "subscript") else 0.0

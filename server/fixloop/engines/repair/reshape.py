"""A wrong expression or a wrong call argument, fixed with the function's own material.

- `reshape_name`: a name where a slice, element, length, power, absolute value or one-argument call of
  it is needed (`for x in xs` -> `for x in xs[k:]`, `x - guess` -> `x - guess ** 2`), the forms chosen by
  how the function already uses the name (a sequence is sliced, a number is raised).
- `clamp`: an arithmetic result kept at or above zero (`max(0, run + x)`) or made absolute.
- `same_shape`: a subscript, attribute, call or arithmetic expression replaced by another of the same kind
  from the same function, the most alike first.
- `call_argument`: in a recursive call (above all) or a call to a function of the file, an argument
  offset by one or by an in-scope quantity (`kth(above, k)` -> `kth(above, k - below)`), or replaced by
  another argument the file passes to the same function, or by a local; or the call dropped for its only
  argument (`yield flatten(x)` -> `yield x`).
"""

from __future__ import annotations

import difflib
from typing import Iterator

from tree_sitter import Node

from fixloop.engines.repair.context import Facts, facts, function_of, in_scope, is_read, module_functions, near_names, parenthesized, prefer, reads, \
    replacing
from fixloop.engines.repair.operators import Mutation
from fixloop.kit.syntax import ByText, Offsets, text_of, walk

SHAPE_CAP = 6  # other expressions of the same shape tried in place of one
OFFSETS_PER_ARGUMENT = 4


def reshape_name(node: Node, off: Offsets) -> Iterator[Mutation]:
    if not is_read(node) or _is_callee(node):
        return
    fn = function_of(node)
    if fn is None:
        return
    f = facts(fn)
    name = text_of(node)
    if name not in f.locals:
        return
    forms: list[tuple[str, float]] = []
    if name in f.sequences:
        forms += [(f"{name}[1:]", 1.0), (f"{name}[:-1]", 0.8), (f"{name}[0]", 0.6), (f"{name}[-1]", 0.6),
                  (f"len({name})", 0.6)]
        bounds = [n for n in prefer(f.locals, near_names(node)) if n in f.numbers and n != name][:3]
        forms += [(f"{name}[{k}:]", 0.8) for k in bounds] + [(f"{name}[:{k}]", 0.7) for k in bounds]
    if name in f.numbers:
        forms += [(f"{name} ** 2", 0.9), (f"abs({name})", 0.6)]
    forms += [(f"{callee}({name})", 0.5) for callee in f.callees[:3] if callee not in ("len", "abs")]
    parent = node.parent
    wrap = parent is not None and parent.type in ("binary_operator", "unary_operator", "attribute", "subscript") \
        and parent.child_by_field_name("value") != node
    for new, weight in forms:
        text = f"({new})" if wrap and " " in new else new
        yield replacing("reshape_name", node, off, text, f"{name} -> {new}", weight)


def _is_callee(node: Node) -> bool:
    return node.parent is not None and node.parent.type == "call" and node.parent.child_by_field_name("function") == node


def clamp(node: Node, off: Offsets) -> Iterator[Mutation]:
    op = node.child_by_field_name("operator") if node.type == "binary_operator" else None
    parent = node.parent
    if op is None or text_of(op) not in ("+", "-") or parent is None:
        return
    if parent.type not in ("assignment", "augmented_assignment", "return_statement", "argument_list"):
        return
    old = text_of(node)
    for new, weight in ((f"max(0, {old})", 1.0), (f"abs({old})", 0.5), (f"min(0, {old})", 0.4)):
        yield replacing("clamp", node, off, new, f"{old} -> {new}", weight)


def same_shape(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type not in ("subscript", "attribute", "call", "binary_operator") or _is_callee(node):
        return
    if node.type == "attribute" and node.parent is not None and node.parent.type == "call":
        return  # a method name: sibling_call and replace_attribute cover those
    fn = function_of(node)
    if fn is None:
        return
    old = text_of(node)
    if "\n" in old:
        return
    scope = in_scope(node)
    options = [e for e in facts(fn).expressions.get(node.type, []) if e != old and old not in e and e not in old]
    options.sort(key=lambda e: -difflib.SequenceMatcher(None, old, e).ratio())
    kept = 0
    for new in options:
        if kept >= SHAPE_CAP:
            return
        if _names_of(new, fn) <= scope:
            kept += 1
            yield replacing("same_shape", node, off, new, f"{old} -> {new}", 1.0 if kept <= 2 else 0.6)


def _names_of(text: str, fn: Node) -> frozenset[str]:
    """Names read by one of the function's own expressions (found again by its text)."""
    return _expression_reads(fn).get(text, frozenset({"\0"}))  # an unknown text is never in scope


def _read_expressions(fn: Node) -> dict[str, frozenset[str]]:
    """Names read by each of a function's expressions of the shapes `same_shape` exchanges (the first of
    each text): one walk per function, not one per option tried."""
    got: dict[str, frozenset[str]] = {}
    for sub in walk(fn):
        if sub.type in ("subscript", "attribute", "call", "binary_operator"):
            text = text_of(sub)
            if text not in got:
                got[text] = frozenset(reads(sub))
    return got


_expression_reads = ByText(_read_expressions, 256)


def call_argument(node: Node, off: Offsets) -> Iterator[Mutation]:
    fn_node, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if node.type != "call" or fn_node is None or args is None:
        return
    callee = text_of(fn_node).split(".")[-1]
    fn = function_of(node)
    if fn is None:
        return
    f = facts(fn)
    recursive = callee == f.name
    if not recursive and callee not in module_functions(node):
        return
    # A recursive call that makes no progress is the classic non-terminating or wrong recursion: its
    # arguments are among the first suspects, ahead of renames at the same line.
    scale = 2.5 if recursive else 0.6
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "list_splat",
                                                                   "dictionary_splat", "comment")]
    if len(positional) == 1 and len(args.named_children) == 1:
        # The call itself may be the mistake: the argument was meant (`yield flatten(x)` -> `yield x`).
        inner = text_of(positional[0])
        yield replacing("call_argument", node, off, inner, f"{text_of(node)} -> {inner}", 0.5 * scale)
    others = _arguments_elsewhere(node, callee)
    near = near_names(node)
    for index, arg in enumerate(positional):
        for new, weight in _argument_options(arg, f, near, others.get(index, [])):
            yield replacing("call_argument", arg, off, new, f"{callee}(..{text_of(arg)}..) -> {new}", scale * weight)


def _argument_options(arg: Node, f: Facts, near: set[str], elsewhere: list[str]) -> Iterator[tuple[str, float]]:
    old, base = text_of(arg), parenthesized(arg)
    used = reads(arg)
    if arg.type != "integer":
        yield f"{base} - 1", 1.0
        yield f"{base} + 1", 1.0
    quantities = [n for n in prefer(f.locals, near) if n in f.numbers and n not in used][:OFFSETS_PER_ARGUMENT]
    if used & f.numbers or arg.type == "integer":
        for q in quantities:
            yield f"{base} - {q}", 0.7
            yield f"{base} + {q}", 0.5
    for other in elsewhere:
        if other != old:
            yield other, 0.6
    for name in prefer(f.locals, near)[:4]:
        if name != old and name not in used and arg.type != "identifier":
            yield name, 0.4  # a plain name in place of a name: replace_identifier's job


def _arguments_elsewhere(node: Node, callee: str) -> dict[int, list[str]]:
    """Position -> the argument texts other calls of `callee` in the same function pass there."""
    fn = function_of(node)
    out: dict[int, list[str]] = {}
    if fn is None:
        return out
    scope = in_scope(node)
    for call in walk(fn):
        target, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if call.type != "call" or call == node or target is None or args is None:
            continue
        if text_of(target).split(".")[-1] != callee:
            continue
        for i, arg in enumerate(a for a in args.named_children if a.type != "keyword_argument"):
            if "\n" not in text_of(arg) and reads(arg) <= scope and text_of(arg) not in out.get(i, []):
                out.setdefault(i, []).append(text_of(arg))
    return out


"""Literal values bound at import: a parameter's default, a module constant, a class attribute.

`binding_value` replaces such a literal with another value of its type that the code around it gives:

- one the name is compared with or set to in its scope (`if mode == "fast"`, `if sep is None: sep = ","`),
  its scope being the function for a default, the module for a constant, the class for an attribute;
- the value the same name has elsewhere in the file (`size=10` in a sibling function's signature, the
  same attribute of another class), or is passed as a keyword (`page(items, size=10)`);
- `None` for a default its function compares with None, and for a `None` default any of the above;
- twice and half an integer of 2 or more (an indent of 2 for 4, a page of 8 for 16).

`binding_name` does the same for a binding whose value names a constant of a family (`method=EASTER_ORTHODOX`
-> `method=EASTER_WESTERN`): the module's other constants with the same prefix, defined or imported there.

Integers (+/- 1) and booleans (flipped) get `integer_nudge` and `flip_boolean` there as anywhere else.
bindings.py makes these lines suspects; this operator is what they are worth trying.

`format_precision` nudges the precision or width of a format in any string literal by one (`"%.1f"` ->
`"%.2f"`, `"{:.3f}"`, `f"{x:>8}"`): the integer_nudge of numbers written inside strings.
"""

from __future__ import annotations

import re
from typing import Iterator

from tree_sitter import Node

from fixloop.core.patch import TextEdit
from fixloop.engines.repair.candidate import Mutation
from fixloop.kit.syntax import Offsets, enclosing, is_docstring, root_of, text_of, walk

VALUES = ("integer", "float", "string", "none")
KINDS = {"integer": "number", "float": "number", "string": "string", "none": "none", "true": "bool", "false": "bool"}
CONTAINERS = ("list", "tuple", "set", "parenthesized_expression", "unary_operator", "pair")
SELF = ("self", "cls")
CAP = 6  # values tried in place of one literal
CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")  # EASTER_WESTERN, MODE_FAST: one of a family
SCALED = 0.7  # twice or half the value, when the code around it gives none better


# `%.2f`, `%5d`, `{:.3f}`, `{0:>8}`: a digit run right after `%` + flags or `:` + align/sign, or after `.`
_FORMAT = re.compile(r"(?:%[-+ #0]*|:[<>^=]?[-+ ]?0?|\.)(\d{1,2})(?=[diouxXeEfFgGs%]|[}.])")


def format_precision(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type != "string" or is_docstring(node):
        return
    text = text_of(node)
    start = off.char(node.start_byte)
    for m in list(_FORMAT.finditer(text))[:CAP]:
        value = int(m.group(1))
        for new in (value + 1, value - 1):
            if new < 0:
                continue
            edited = text[:m.start(1)] + str(new) + text[m.end(1):]
            yield Mutation("format_precision", TextEdit(start, start + len(text), edited),
                           f"{text} -> {edited}", 1.0)


def binding_value(node: Node, off: Offsets) -> Iterator[Mutation]:
    if node.type not in VALUES or (node.type == "string" and is_docstring(node)):
        return
    site = binding_of(node)
    if site is None:
        return
    name, kind, scope = site
    target = node.parent if node.parent is not None and node.parent.type == "unary_operator" else node
    old = text_of(target)
    seen: dict[str, float] = {}
    for text, literal, weight in _values(name, kind, scope):
        same_type = KINDS[literal] == KINDS[node.type] and KINDS[literal] != "none"
        if text != old and (same_type or node.type == "none" and literal != "none") and weight > seen.get(text, 0.0):
            seen[text] = weight
    if kind == "default" and node.type != "none":
        seen["None"] = max(seen.get("None", 0.0), 1.0 if _checks_none(name, scope) else 0.3)
    for text in _scaled(old) if node.type == "integer" else ():
        seen.setdefault(text, SCALED)
    for text, weight in sorted(seen.items(), key=lambda kv: -kv[1])[:CAP]:
        yield Mutation.replacing("binding_value", target, off, text, f"{name} = {old} -> {name} = {text}", weight)


def _scaled(old: str) -> tuple[str, ...]:
    """Twice and half an integer of 2 or more: sizes, widths and indents come in powers of two (2 and 4)."""
    try:
        value = int(old.replace("_", ""), 0)
    except ValueError:
        return ()
    return (str(value * 2), str(value // 2)) if 2 <= value <= 1 << 20 else ()


def binding_name(node: Node, off: Offsets) -> Iterator[Mutation]:
    """A default, constant or attribute that names a constant: another constant of its family
    (`method=EASTER_ORTHODOX` -> `method=EASTER_WESTERN`), defined in the module or imported beside it."""
    if node.type != "identifier" or not CONSTANT_NAME.match(text_of(node)) or not _is_value(node):
        return
    site = binding_of(node)
    if site is None:
        return
    old = text_of(node)
    prefix = old[:old.rfind("_") + 1]
    family = [n for n in _constants_and_imports(root_of(node)) if n != old and n.startswith(prefix) and CONSTANT_NAME.match(n)]
    for new in list(dict.fromkeys(family))[:CAP]:
        yield Mutation.replacing("binding_value", node, off, new, f"{site[0]} = {old} -> {site[0]} = {new}")


def _is_value(node: Node) -> bool:
    """The whole value of its binding, not a part of an expression (`A | B`) or a call."""
    parent = node.parent
    return parent is not None and parent.type in ("default_parameter", "typed_default_parameter", "assignment")


def _constants_and_imports(root: Node) -> Iterator[str]:
    """Names the module binds at its top level: assigned, and imported by name."""
    for stmt in root.named_children:
        inner = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_child_count else stmt
        left = inner.child_by_field_name("left") if inner.type == "assignment" else None
        if left is not None and left.type == "identifier":
            yield text_of(left)
        elif inner.type == "import_from_statement":
            for item in inner.children_by_field_name("name"):
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                yield text_of(alias if alias is not None else item).split(".")[-1]


def binding_of(node: Node) -> tuple[str, str, Node] | None:
    """(name, "default" | "constant" | "attribute", scope) of the binding whose value holds `node`."""
    cur = node
    while cur.parent is not None and cur.parent.type in CONTAINERS:
        if cur.parent.type == "pair" and cur.parent.child_by_field_name("value") != cur:
            return None  # a key of a table: the entries are looked up by it
        cur = cur.parent
    parent = cur.parent
    if parent is None:
        return None
    if parent.type in ("default_parameter", "typed_default_parameter") and parent.child_by_field_name("value") == cur:
        name, fn = parent.child_by_field_name("name"), enclosing(parent, "function_definition")
        return (text_of(name), "default", fn) if name is not None and fn is not None else None
    left = parent.child_by_field_name("left") if parent.type == "assignment" else None
    if left is None or left.type != "identifier" or parent.child_by_field_name("right") != cur:
        return None
    holder = enclosing(parent, "function_definition", "class_definition")
    if holder is None:
        return text_of(left), "constant", root_of(parent)
    return (text_of(left), "attribute", holder) if holder.type == "class_definition" else None


def _values(name: str, kind: str, scope: Node) -> Iterator[tuple[str, str, float]]:
    """(text, literal type, weight) of the values the code gives `name` besides its binding."""
    body = scope.child_by_field_name("body") if kind == "default" else scope
    for node in walk(body) if body is not None else ():
        if node.type == "comparison_operator" and any(_names(c, name, kind) for c in node.named_children):
            for other in node.named_children:
                yield from _literals(other, 1.0)
        elif node.type in ("assignment", "augmented_assignment") and _names(node.child_by_field_name("left"), name, kind) \
                and node.child_by_field_name("right") is not None and enclosing(node, "function_definition") is not None:
            yield from _literals(node.child_by_field_name("right"), 1.0)  # type: ignore[arg-type]
    root = root_of(scope)
    fn_name = text_of(scope.child_by_field_name("name")) if kind == "default" and scope.child_by_field_name("name") else ""
    for node in walk(root):
        if node.type in ("default_parameter", "typed_default_parameter") and kind == "default":
            if text_of(node.child_by_field_name("name") or node) == name and enclosing(node, "function_definition") != scope:
                yield from _literals(node.child_by_field_name("value"), 0.9)  # type: ignore[arg-type]
        elif node.type == "keyword_argument" and fn_name and text_of(node.child_by_field_name("name") or node) == name:
            call = node.parent.parent if node.parent is not None else None
            callee = call.child_by_field_name("function") if call is not None and call.type == "call" else None
            if callee is not None and text_of(callee).split(".")[-1] == fn_name:
                yield from _literals(node.child_by_field_name("value"), 0.8)  # type: ignore[arg-type]
        elif node.type == "assignment" and kind == "attribute" and enclosing(node, "function_definition") is None:
            holder = enclosing(node, "class_definition")
            if holder is not None and holder != scope and text_of(node.child_by_field_name("left") or node) == name:
                yield from _literals(node.child_by_field_name("right"), 0.8)  # type: ignore[arg-type]


def _names(node: Node | None, name: str, kind: str) -> bool:
    """Whether `node` is `name` as its scope reads it (`self.name`, `cls.name` for an attribute)."""
    if node is None:
        return False
    if kind != "attribute":
        return node.type == "identifier" and text_of(node) == name
    attr, obj = node.child_by_field_name("attribute"), node.child_by_field_name("object")
    return node.type == "attribute" and attr is not None and obj is not None and text_of(attr) == name and \
        obj.type == "identifier"


def _literals(node: Node | None, weight: float) -> Iterator[tuple[str, str, float]]:
    """The literal itself, or the literals of a tuple, list or set of them (`mode in ("a", "b")`)."""
    if node is None:
        return
    items = node.named_children if node.type in ("tuple", "list", "set") else [node]
    for item in items:
        if item.type in KINDS and item.type != "string" or item.type == "string" and _plain(item):
            yield text_of(item), item.type, weight
        elif item.type == "unary_operator" and text_of(item).startswith("-") and \
                item.child_by_field_name("argument") is not None and \
                item.child_by_field_name("argument").type in ("integer", "float"):  # type: ignore[union-attr]
            yield text_of(item), item.child_by_field_name("argument").type, weight  # type: ignore[union-attr]


def _plain(node: Node) -> bool:
    """A string without interpolation (an f-string's value is not a constant)."""
    return not any(c.type == "interpolation" for c in node.named_children) and "\n" not in text_of(node)


def _checks_none(name: str, fn: Node) -> bool:
    """Whether the function compares the parameter with None (its default is then meant to be None)."""
    body = fn.child_by_field_name("body")
    for node in walk(body) if body is not None else ():
        if node.type == "comparison_operator" and any(c.type == "none" for c in node.named_children) and \
                any(c.type == "identifier" and text_of(c) == name for c in node.named_children):
            return True
    return False


"""What a place in the code can take: whether one name may stand for another where it is read.

Never a function, class or module where a value was or where only a value can go (`xs[0]`, `*xs`,
`n + 1`); never a value of a type the place cannot take (`n - items` with `items` a list, `len(count)`,
`xs[name]` with `name` a string and `xs` a list, `items.width` with `items` a list); never a receiver
that is not known to have the attribute read on it where `self` was (`self.size` -> `plugin.size`).
What a name is comes from `kinds`; where nothing tells, a local's use in its function does
(`context.role`: indexed or iterated, a sequence; in arithmetic or range(), a number). Unknown never rules a
candidate out.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from fixloop.engines.repair.context import facts, function_of, role
from fixloop.engines.repair.kinds import (CALLABLES, ITERATING, NOT_VALUES, ORDERED, SEQUENCES, TYPES, expression_type,
                                          is_value, kind_of)
from fixloop.kit.syntax import attributes_on, enclosing, parameter_name, text_of


def may_stand_for(node: Node, new: str) -> bool:
    """Whether the name `new` may replace the identifier `node`, read as a value where it is."""
    old_kind, new_kind = kind_of(text_of(node), node), kind_of(new, node)
    if new_kind in NOT_VALUES and (is_value(old_kind) or _value_only(node)):
        return False
    if old_kind in CALLABLES and is_value(new_kind):
        return False
    if old_kind == "module" and new_kind not in ("module", ""):
        return False
    if not _receiver_fits(node, new):
        return False
    return accepts(node, new_kind if new_kind in TYPES else _role(new, node) or new_kind)


RECEIVERS = ("self", "cls")


def _receiver_fits(node: Node, new: str) -> bool:
    """`self.width` -> `other.width` only where `other` is known to have a `width` (the file uses it on
    `other`) or to be of the method's own class (annotated so, or unannotated and a dunder's operand or named
    `other`, by convention); the same
    for a name put where `self` or `cls` was the receiver. Other receivers: nothing is known either way."""
    parent = node.parent
    attribute = parent.child_by_field_name("attribute") if parent is not None and parent.type == "attribute" else None
    if attribute is None or parent is None or parent.child_by_field_name("object") != node:
        return True
    if text_of(node) not in RECEIVERS and new not in RECEIVERS:
        return True
    if text_of(attribute) in attributes_on(node, new):
        return True
    return new not in RECEIVERS and _of_own_class(node, new)


def _of_own_class(node: Node, name: str) -> bool:
    fn, cls = enclosing(node, "function_definition"), enclosing(node, "class_definition")
    params = fn.child_by_field_name("parameters") if fn is not None else None
    if fn is None or cls is None or params is None:
        return False
    own = text_of(cls.child_by_field_name("name") or cls)
    dunder = text_of(fn.child_by_field_name("name") or fn).startswith("__")
    for p in params.named_children:
        ident = parameter_name(p)
        if ident is None or text_of(ident) != name:
            continue
        annotation = p.child_by_field_name("type")
        if annotation is None:
            return dunder or name == "other"
        return re.search(rf"\b{re.escape(own)}\b", text_of(annotation)) is not None
    return False


def _value_only(node: Node) -> bool:
    """Whether the place of `node` takes only a value, never a function, class or module (`xs[0]`, `*xs`,
    `n + 1`, `for x in xs`, `len(xs)`)."""
    parent = node.parent
    if parent is None:
        return False
    ptype = parent.type
    if ptype in ("list_splat", "dictionary_splat", "binary_operator", "unary_operator", "augmented_assignment"):
        return True
    if ptype == "subscript":
        return parent.child_by_field_name("value") == node
    if ptype == "comparison_operator":
        return any(text_of(c) in ORDERED for c in parent.children if not c.is_named)
    if ptype in ("for_statement", "for_in_clause"):
        return parent.child_by_field_name("right") == node
    call = parent.parent if ptype == "argument_list" else None
    callee = call.child_by_field_name("function") if call is not None else None
    return callee is not None and text_of(callee) in ITERATING and len(parent.named_children) == 1


def _typed(node: Node) -> str:
    kind = expression_type(node)
    return kind if kind in TYPES or node.type != "identifier" else _role(text_of(node), node) or kind


def _role(name: str, at: Node) -> str:
    """A local's type as its function uses it (subscripted, iterated: a sequence; in arithmetic: a number)."""
    fn = function_of(at)
    f = facts(fn) if fn is not None else None
    return {"number": "number", "sequence": "sequence"}.get(role(name, f), "") if f is not None and name in f.locals else ""


def accepts(node: Node, kind: str) -> bool:
    """Whether the place of `node` can take a value of `kind` (True when either is unknown)."""
    parent = node.parent
    if kind in TYPES and parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == node:
        attribute = parent.child_by_field_name("attribute")
        return attribute is None or _has_attribute(kind, text_of(attribute))
    if kind not in TYPES or kind == "none":
        return not kind.startswith("instance:") or _instance_fits(node)
    if parent is None:
        return True
    ptype = parent.type
    numeric = kind in ("number", "bool")
    if ptype == "binary_operator":
        op = text_of(parent.child_by_field_name("operator") or parent)
        other = parent.child_by_field_name("right" if parent.child_by_field_name("left") == node else "left")
        other_kind = _typed(other) if other is not None else ""
        if op in ("/", "//", "**") or op == "-" and kind != "set":
            return numeric
        if op == "-":  # a set difference, with a set
            return other_kind not in TYPES or other_kind in ("set", "none")
        if op == "+" and other_kind in TYPES and other_kind != "none":
            return _compatible(kind, other_kind)
        return kind not in ("dict", "none")
    if ptype in ("unary_operator", "slice"):
        return numeric
    if ptype == "comparison_operator":
        ops = [text_of(c) for c in parent.children if not c.is_named]
        others = [c for c in parent.named_children if c != node]
        if any(o in ORDERED for o in ops):
            return all(_compatible(kind, _typed(o)) for o in others)
        if ops and ops[0] in ("in", "not in") and parent.named_children[-1] == node:
            return not numeric
        return True
    if ptype == "subscript":
        if parent.child_by_field_name("value") == node:
            return kind not in ("number", "bool", "set")
        container = parent.child_by_field_name("value")
        ctype = _typed(container) if container is not None else ""
        if ctype in ("list", "tuple", "str", "bytes"):
            return numeric
        return not (ctype == "dict" and kind in ("list", "dict", "set"))
    if ptype == "for_statement" and parent.child_by_field_name("right") == node:
        return not numeric
    call = parent.parent if ptype == "argument_list" else None
    callee = call.child_by_field_name("function") if call is not None else None
    if callee is not None and text_of(callee) in ITERATING and len(parent.named_children) == 1:
        return not numeric
    if callee is not None and text_of(callee) == "range":
        return numeric
    return True


BUILTIN_TYPES = {"number": (int, float, complex), "bool": (bool,), "str": (str,), "bytes": (bytes,), "list": (list,),
                 "tuple": (tuple,), "dict": (dict,), "set": (set, frozenset), "none": (type(None),),
                 "sequence": (str, bytes, list, tuple)}


def _has_attribute(kind: str, attribute: str) -> bool:
    """Whether a value of the built-in `kind` has `attribute` (`items.append`, never `items.width`)."""
    return any(hasattr(t, attribute) for t in BUILTIN_TYPES.get(kind, (object,)))


def _instance_fits(node: Node) -> bool:
    """A project class's instance does no arithmetic and is no index, as far as anyone can tell."""
    parent = node.parent
    if parent is None:
        return True
    if parent.type == "binary_operator" and text_of(parent.child_by_field_name("operator") or parent) in ("/", "//", "**"):
        return False
    return not (parent.type == "subscript" and parent.child_by_field_name("value") != node and
                expression_type(parent.child_by_field_name("value")) in ("list", "tuple", "str"))  # type: ignore[arg-type]


def _compatible(a: str, b: str) -> bool:
    if a not in TYPES or b not in TYPES or "none" in (a, b):
        return True
    if "sequence" in (a, b):
        return a in SEQUENCES and b in SEQUENCES
    if {a, b} <= {"number", "bool"} or {a, b} <= {"list", "tuple"}:
        return True
    return a == b

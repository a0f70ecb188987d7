"""How well a call's positional arguments fit the parameters they are passed to, by their names.

`blend(inside, outside, 0.25)` to `def blend(self, outside, inside, share)`, `discount(rate, self.base_price)`
to `def discount(price, rate)`: an argument named after another parameter than its own was most likely
passed in the wrong place (name-based detection of exchanged arguments). The callee is read where this
file defines it: a module-level function for `name(...)`, a method of the enclosing class for
`self.name(...)`. A callee defined elsewhere, or arguments with no names, say nothing.
"""

from __future__ import annotations

from typing import Sequence

from tree_sitter import Node

from fixloop.kit.syntax import enclosing, parameter_name, root_of, text_of

EXCHANGED, IN_PLACE = 3.0, 0.3  # the weight of an exchange the names ask for, and of one they speak against


def exchange_weight(call: Node, args: Sequence[Node], i: int, j: int) -> float:
    """The weight of exchanging positional arguments `i` and `j` of `call`: EXCHANGED when their names fit
    each other's parameters better than their own, IN_PLACE when they fit their own better, 1.0 otherwise."""
    params = _parameters(call)
    if params is None or max(i, j) >= len(params):
        return 1.0
    a, b = _name(args[i]), _name(args[j])
    now = _fit(a, params[i]) + _fit(b, params[j])
    exchanged = _fit(a, params[j]) + _fit(b, params[i])
    return EXCHANGED if exchanged > now else IN_PLACE if now > exchanged else 1.0


def _name(arg: Node) -> str:
    if arg.type == "identifier":
        return text_of(arg)
    if arg.type == "attribute":
        return text_of(arg.child_by_field_name("attribute") or arg)
    return ""


def _fit(name: str, parameter: str) -> float:
    if not name or not parameter:
        return 0.0
    a, b = name.lower().strip("_"), parameter.lower().strip("_")
    if a == b:
        return 1.0
    shorter, longer = sorted((a, b), key=len)
    return 0.8 if len(shorter) >= 3 and shorter in longer.split("_") else 0.0


def _parameters(call: Node) -> list[str] | None:
    """The callee's positional parameter names (without `self` or `cls`), or None when this file does not
    define it."""
    callee = call.child_by_field_name("function")
    if callee is None:
        return None
    scope: Node | None = root_of(call)
    name = text_of(callee)
    method = False
    if callee.type == "attribute":
        receiver = callee.child_by_field_name("object")
        if receiver is None or text_of(receiver) not in ("self", "cls"):
            return None
        scope = enclosing(call, "class_definition")
        name = text_of(callee.child_by_field_name("attribute") or callee)
        method = True
    body = scope.child_by_field_name("body") if scope is not None and scope.type == "class_definition" else scope
    if body is None:
        return None
    for node in body.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is not None and fn.type == "function_definition" and text_of(fn.child_by_field_name("name") or fn) == name:
            static = node.type == "decorated_definition" and "@staticmethod" in text_of(node)[:text_of(node).find("def ")]
            return _positional(fn)[1 if method and not static else 0:]
    return None


def _positional(fn: Node) -> list[str]:
    params = fn.child_by_field_name("parameters")
    out: list[str] = []
    for p in params.named_children if params is not None else ():
        if p.type == "positional_separator":
            continue
        if p.type in ("list_splat_pattern", "dictionary_splat_pattern", "keyword_separator"):
            break
        ident = parameter_name(p)
        if ident is None or ident.type != "identifier":
            break
        out.append(text_of(ident))
    return out

"""A member left out of a literal collection: `unified in ("IF", "FOR")` -> `unified in ("IF", "FOR", "CASE")`.

The missing member comes from the program, never from nowhere: first a literal of the same kind that the
same subject is compared with elsewhere in the scope (`if unified == "CASE":`), then `T.NAME` attributes of
the same object as the members, then other literals of that kind in the scope (the function, or the class
or module body for a constant). At most `MEMBER_CAP` a collection, nearest first: a wrong guess here is a
harmless miss, but a long list of them would push the next line's candidates back.
"""

from __future__ import annotations

from typing import Iterator

from tree_sitter import Node

from fixloop.engines.repair.candidate import Mutation
from fixloop.kit.syntax import Offsets, enclosing, is_docstring, root_of, text_of, walk
from fixloop.core.patch import TextEdit

MEMBER_CAP = 4
COLLECTIONS = ("tuple", "list", "set")
SCOPES = ("function_definition", "class_definition")
COMPARED, SAME_OBJECT, IN_SCOPE = 1.0, 0.7, 0.5
LONGEST = 40  # a longer string is a message or a template, not a member of a set of words


def add_member(node: Node, off: Offsets) -> Iterator[Mutation]:
    members = _members(node)
    if not members:
        return
    kind = _kind(members[0])
    if not kind or any(_kind(m) != kind for m in members):
        return
    held = {_value(m) for m in members}
    subject = _subject(node)
    scope = enclosing(node, *SCOPES) or root_of(node)
    options: dict[str, tuple[float, int, str]] = {}  # value -> (weight, distance, text)
    for other in walk(scope):
        if _kind(other) != kind or _value(other) in held or is_docstring(other) or _inside(other, node):
            continue
        weight = COMPARED if subject and _compared_with(other, subject) else SAME_OBJECT if kind[0] == "attr" else IN_SCOPE
        distance = abs(other.start_point[0] - node.start_point[0])
        old = options.get(_value(other))
        if old is None or (-weight, distance) < (-old[0], old[1]):
            options[_value(other)] = (weight, distance, text_of(other))
    last = members[-1]
    at = off.char(last.end_byte)
    for weight, _, new in sorted(options.values(), key=lambda o: (-o[0], o[1], o[2]))[:MEMBER_CAP]:
        yield Mutation("add_member", TextEdit(at, at, f", {new}"), f"{_short(node)} + {new}", weight)


def _members(node: Node) -> list[Node]:
    """The members of a literal collection (a bare `a, b` on the right of `=` too), or []."""
    bare = node.type == "expression_list" and node.parent is not None and node.parent.type == "assignment"
    if node.type not in COLLECTIONS and not bare:
        return []
    return [c for c in node.named_children if c.type != "comment"]


def _kind(node: Node) -> tuple[str, ...]:
    """What a member is, for telling alike ones: a plain string, a number, or `OBJ.NAME` of one object."""
    if node.type == "string":
        text = text_of(node)
        plain = not any(c.type == "interpolation" for c in node.named_children) and "\n" not in text
        return ("string",) if plain and len(text) <= LONGEST and text[:1] in "'\"" else ()
    if node.type in ("integer", "float"):
        return ("number",)
    if node.type == "attribute":
        obj = node.child_by_field_name("object")
        if obj is not None and obj.type in ("identifier", "attribute") and obj.text is not None:
            return ("attr", text_of(obj))
    return ()


def _value(node: Node) -> str:
    """A member's value: the same string in either quotes is one member."""
    text = text_of(node)
    return text[1:-1] if node.type == "string" else text


def _subject(node: Node) -> str:
    """`x` of `x in (...)`: the collection is a set of values `x` is checked against."""
    parent = node.parent
    if parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is None or parent.type != "comparison_operator" or parent.named_child_count != 2:
        return ""
    if "in" not in [text_of(c) for c in parent.children if not c.is_named]:
        return ""
    return text_of(parent.named_children[0])


def _compared_with(node: Node, subject: str) -> bool:
    """`subject == node`, `node == subject`, or `subject in (..., node, ...)`."""
    parent = node.parent
    if parent is not None and parent.type in COLLECTIONS:
        return _subject(parent) == subject
    return (parent is not None and parent.type == "comparison_operator"
            and any(text_of(c) == subject for c in parent.named_children if c != node))


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _short(node: Node) -> str:
    text = " ".join(text_of(node).split())
    return text if len(text) <= 40 else text[:37] + "..."

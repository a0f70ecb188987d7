"""Pure helpers over tree-sitter nodes for the rule engine (matchers.py): call arguments, literals,
constant folding of strings built to spell a name, and the text tests the rules share."""

from __future__ import annotations

import re
from typing import Callable

from tree_sitter import Node

from fixloop.adapters.safety.catalog import BLOCKED_STRINGS, NOT_A_SECRET_SUFFIXES, SECRET_WORDS

_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_HARMLESS_PATHS = ("/dev/null", "/dev/stdout", "/dev/stderr")


def _arguments(call: Node) -> tuple[list[Node], dict[str, Node]]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return [], {}
    if args.type != "argument_list":
        return [args], {}  # eval(x for x in y): a lone generator expression
    pos: list[Node] = []
    kw: dict[str, Node] = {}
    for child in args.named_children:
        if child.type == "keyword_argument":
            key, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if key is not None and value is not None:
                kw[_text(key)] = value
        elif child.type not in ("list_splat", "dictionary_splat", "comment"):
            pos.append(child)
    return pos, kw


def _literal(node: Node) -> str | None:
    """The value of a string literal without interpolation, else None."""
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _literal(node.named_children[0])
    if node.type == "concatenated_string":
        parts = [_literal(c) for c in node.named_children]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
    if node.type != "string":
        return None
    if any(c.type == "interpolation" for c in node.children):
        return None
    return "".join(_text(c) for c in node.children if c.type == "string_content")


# Where a string literal may spell, or help build, a blocked name (each with where its quote is): a
# quoted blocked word, literals joined by + or % or written side by side, "sep".join(, "fmt".format(,
# and an f-string interpolating a literal.
_LOOKUP_BUILTINS = frozenset({"getattr", "setattr", "delattr", "__import__", "vars", "globals", "locals"})
_FOLDABLE = frozenset({"string", "concatenated_string", "parenthesized_expression", "binary_operator", "call"})
_FOLD_PATH = _FOLDABLE | {"list", "tuple", "argument_list", "attribute", "interpolation"}
_SIMPLE_FIELDS = re.compile(r"\{\w*\}")
_SIMPLE_PERCENT = re.compile(r"%[s%]")
_FOLD_LIMIT = 200  # longer values cannot be a blocked name


def _fold(node: Node, depth: int = 0) -> str | None:
    """The value of an expression made only of string literals: +, %-formatting with %s, .format with
    plain fields, "sep".join([...]), f-strings whose parts fold; None for anything else."""
    if depth > 20:
        return None
    t = node.type
    if t == "string":
        out: list[str] = []
        for c in node.children:
            if c.type == "string_content":
                out.append(_text(c))
            elif c.type == "interpolation":
                inner = c.child_by_field_name("expression")
                if inner is None or any(x.type in ("format_specifier", "type_conversion") for x in c.children):
                    return None
                value = _fold(inner, depth + 1)
                if value is None:
                    return None
                out.append(value)
            elif c.type == "escape_sequence":
                return None
        return "".join(out)
    if t == "concatenated_string" or t == "parenthesized_expression":
        parts = [_fold(c, depth + 1) for c in node.named_children]
        if not parts or any(p is None for p in parts) or (t == "parenthesized_expression" and len(parts) != 1):
            return None
        return _bounded("".join(parts))  # type: ignore[arg-type]
    if t == "binary_operator":
        op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
        if op is None or left is None or right is None:
            return None
        lv = _fold(left, depth + 1)
        if lv is None:
            return None
        if op.type == "+":
            rv = _fold(right, depth + 1)
            return None if rv is None else _bounded(lv + rv)
        if op.type == "%" and _SIMPLE_PERCENT.sub("", lv).count("%") == 0:
            items = right.named_children if right.type == "tuple" else [right]
            args = [_fold(i, depth + 1) for i in items]
            if any(a is None for a in args):
                return None
            try:
                return _bounded(lv % tuple(args))
            except (TypeError, ValueError):
                return None
        return None
    if t == "call":
        func = node.child_by_field_name("function")
        if func is None or func.type != "attribute":
            return None
        obj, attr = func.child_by_field_name("object"), func.child_by_field_name("attribute")
        base = _fold(obj, depth + 1) if obj is not None else None
        if base is None or attr is None:
            return None
        pos, kw = _arguments(node)
        method = _text(attr)
        if method == "join" and len(pos) == 1 and not kw and pos[0].type in ("list", "tuple"):
            parts = [_fold(i, depth + 1) for i in pos[0].named_children]
            return None if any(p is None for p in parts) else _bounded(base.join(parts))  # type: ignore[arg-type]
        if method == "format" and not kw and "{" in base and _SIMPLE_FIELDS.sub("", base).count("{") == 0:
            args = [_fold(i, depth + 1) for i in pos]
            if any(a is None for a in args):
                return None
            try:
                return _bounded(base.format(*args))
            except (IndexError, KeyError, ValueError):
                return None
        return None
    return None


def _bounded(value: str) -> str | None:
    return value if len(value) <= _FOLD_LIMIT else None


def _leading_text(node: Node) -> str | None:
    """The literal text a string starts with (an f-string up to its first interpolation)."""
    if node.type == "concatenated_string":
        return _leading_text(node.named_children[0]) if node.named_children else None
    if node.type != "string":
        return None
    out: list[str] = []
    for c in node.children:
        if c.type == "interpolation":
            break
        if c.type == "string_content":
            out.append(_text(c))
    return "".join(out)


def _truth(node: Node) -> bool | None:
    """The truth of a literal; None when it is not a literal."""
    if node.type == "true":
        return True
    if node.type in ("false", "none"):
        return False
    if node.type == "integer":
        try:
            return int(_text(node), 0) != 0
        except ValueError:
            return None
    literal = _literal(node)
    return None if literal is None else bool(literal)


def _writes(mode: Node | None) -> bool:
    literal = _literal(mode) if mode is not None else None
    return literal is not None and any(c in literal for c in "wax+")


def _is_outside_path(text: str) -> bool:
    if text.startswith(_HARMLESS_PATHS):
        return False
    return text.startswith(("/", "~", "\\\\")) or bool(re.match(r"[A-Za-z]:[\\/]", text)) \
        or text.startswith(("$HOME", "${HOME}", "%USERPROFILE%"))


def _is_secret_name(name: str) -> bool:
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or words[-1] in NOT_A_SECRET_SUFFIXES:
        return False
    joined = {a + b for a, b in zip(words, words[1:])}
    return any(w in SECRET_WORDS for w in words) or any(j in SECRET_WORDS for j in joined)


def _looks_like_secret(value: str, name: str) -> bool:
    v = value.strip()
    if len(v) < 4 or v != value or any(c.isspace() for c in v) or len(set(v)) == 1:
        return False
    if v.startswith(("http://", "https://", "/", "./", "$", "%", "{", "<", "[")):
        return False
    low = v.lower()
    if low == name.lower() or low in SECRET_WORDS or low.startswith(("your_", "your-", "<your")):
        return False
    return not re.fullmatch(r"[A-Z][A-Z0-9_]*_[A-Z0-9_]+", v)  # an environment variable's name


def _last_name(node: Node) -> str:
    if node.type == "attribute":
        attr = node.child_by_field_name("attribute")
        return _text(attr) if attr is not None else ""
    return _text(node) if node.type == "identifier" else ""


def _short(node: Node) -> str:
    text = " ".join(_text(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""

def _trie(words: list[bytes]) -> bytes:
    if words == [b""]:
        return b""
    optional = b"" in words
    groups: dict[int, list[bytes]] = {}
    for w in words:
        if w:
            groups.setdefault(w[0], []).append(w[1:])
    alts = [re.escape(bytes([c])) + _trie(rest) for c, rest in sorted(groups.items())]
    body = alts[0] if len(alts) == 1 and not optional else b"(?:" + b"|".join(alts) + b")"
    return body + b"?" if optional else body


def _before_dot(m: re.Match[bytes]) -> int:
    at = m.start() - 1
    while at >= 0 and m.string[at] in b" \t":
        at -= 1
    return at


_STRING_HINTS: tuple[tuple[re.Pattern[bytes], Callable[[re.Match[bytes]], int]], ...] = (
    (re.compile(rb"['\"](?:(?:" + _trie(sorted(w.encode() for w in BLOCKED_STRINGS)) + rb")['\"]"
                rb"|\s*[+%]\s*\(?\s*[rRbBuUfF]{0,2}['\"]|[ \t]*(?:\\?\r?\n\s*|[ \t])[rRbBuUfF]{0,2}['\"])"),
     lambda m: m.start()),
    (re.compile(rb"\.join\("), _before_dot),
    (re.compile(rb"\.format\("), _before_dot),
    (re.compile(rb"\{\s*[rRbBuU]?['\"]"), lambda m: m.end() - 1),
)

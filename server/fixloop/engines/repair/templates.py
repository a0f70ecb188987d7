"""Error-driven repair templates: the exception a failing test raised says what kind of edit to try.

Each template reads one failure (exception type, message, deepest project frame) and the source at
that frame, and returns candidate edits. Templates are few and targeted, so they run before the
blind operator search.
"""

from __future__ import annotations

import ast
import difflib
import re
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping

from tree_sitter import Node

from fixloop.core.model import TestResult
from fixloop.core.patch import TextEdit
from fixloop.engines.repair.candidate import Candidate
from fixloop.engines.repair.imports import importable_from, placement
from fixloop.engines.repair.kinds import NOT_VALUES, kind_of
from fixloop.kit.syntax import Offsets, attributes_of, enclosing, names_in_scope, parse, text_of, walk

TEMPLATE_SCORE = 2.0  # above any single mutation: a template is aimed at the error itself
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
GUARD_VALUES = ("None", "0", "0.0", "[]", '""', "False")


@dataclass(frozen=True)
class Site:
    """Where a failure happened: the deepest project frame outside the tests."""

    path: str
    line: int
    result: TestResult
    score: float = TEMPLATE_SCORE  # a site guessed from suspects (a failed assert in a test) scores lower


Template = Callable[[Site, str, Offsets, Node], Iterator[Candidate]]


def _fix(site: Site, off: Offsets, edit: TextEdit, operator: str, summary: str) -> Candidate:
    """A template's edit, ranked as its site is (aimed at an error, or guessed from the suspects)."""
    return Candidate.placed(site.path, off.text, (edit,), operator, summary, site.score)


def _nodes_on(root: Node, line: int, kind: str) -> list[Node]:
    return [n for n in walk(root) if n.type == kind and n.start_point[0] + 1 == line]


def _statement_of(node: Node) -> Node | None:
    cur: Node | None = node
    while cur is not None and (cur.parent is None or cur.parent.type not in ("block", "module")):
        cur = cur.parent
    return cur


def _guard_before(node: Node, off: Offsets, condition: str, site: Site, op: str) -> Iterator[Candidate]:
    """`if <condition>: return <value>` just before the statement holding `node`."""
    stmt = _statement_of(node)
    if stmt is None or enclosing(stmt, "function_definition") is None:
        return
    start = off.char(stmt.start_byte)
    line_start = off.text.rfind("\n", 0, start) + 1
    indent = off.text[line_start:start]
    if indent.strip():
        return
    for value in GUARD_VALUES:
        text = f"{indent}if {condition}:\n{indent}    return {value}\n"
        yield _fix(site, off, TextEdit(line_start, line_start, text), op, f"guard: if {condition}: return {value}")


# An undefined name as each reports it: Python's NameError, ruff's F821, mypy's name-defined, pyright's
# reportUndefinedVariable (checker findings are failures too: adapters/checkers).
UNDEFINED = {"NameError": re.compile(r"name '(\w+)' is not defined"), "ruff F821": re.compile(r"Undefined name `(\w+)`"),
             "mypy name-defined": re.compile(r'Name "(\w+)" is not defined'),
             "pyright reportUndefinedVariable": re.compile(r'"(\w+)" is not defined')}


def _undefined(site: Site) -> list[str]:
    """The undefined names of `site`'s failure: its message's, and a checker's other findings on its line."""
    pattern = UNDEFINED.get(site.result.exc_type)
    if pattern is None:
        return []
    texts = [site.result.message] + [line for line in site.result.longrepr.splitlines()
                                     if line.startswith(f"{site.path}:{site.line}:")]
    return list(dict.fromkeys(m.group(1) for t in texts for m in pattern.finditer(t)))[:3]


def _assert_before(node: Node, off: Offsets, condition: str, site: Site) -> Iterator[Candidate]:
    """`assert <condition>` just before the statement holding `node` (a type checker narrows on it)."""
    stmt = _statement_of(node)
    if stmt is None:
        return
    start = off.char(stmt.start_byte)
    line_start = off.text.rfind("\n", 0, start) + 1
    indent = off.text[line_start:start]
    if not indent.strip():
        yield _fix(site, off, TextEdit(line_start, line_start, f"{indent}assert {condition}\n"), "narrow_assert",
                   f"assert {condition}")


def name_error(site: Site, off: Offsets, root: Node, sources: Mapping[str, str]) -> Iterator[Candidate]:
    for name in _undefined(site):
        # The name itself a module or defined elsewhere (a lost import) before a name it resembles here (a typo).
        for line in ([f"import {name}\n"] if name in STDLIB else []) + importable_from(name, site.path, sources):
            at, inserted = placement(root, off, line, sources)
            yield _fix(site, off, TextEdit(at, at, inserted), "add_import", line.strip())
        for node in _nodes_on(root, site.line, "identifier"):
            if text_of(node) == name:
                for other in difflib.get_close_matches(name, names_in_scope(node), n=3, cutoff=0.6):
                    yield _fix(site, off, TextEdit(off.char(node.start_byte), off.char(node.end_byte), other),
                               "rename_name", f"{name} -> {other}")


# A type checker's word that an Optional value's attribute is read without narrowing it first.
OPTIONAL_MEMBER = {"mypy union-attr": re.compile(r'Item "None" of "[^"]*" has no attribute "(\w+)"'),
                   "pyright reportOptionalMemberAccess": re.compile(r'"(\w+)" is not a known attribute of "None"')}


def _missing_attribute(site: Site) -> tuple[str, str] | None:
    """(the owner's type, the attribute) of an AttributeError, or of a checker's Optional member finding."""
    if site.result.exc_type == "AttributeError":
        m = re.search(r"'(\w+)' object has no attribute '(\w+)'", site.result.message)
        return (m.group(1), m.group(2)) if m else None
    pattern = OPTIONAL_MEMBER.get(site.result.exc_type)
    m = pattern.search(site.result.message) if pattern else None
    return ("NoneType", m.group(1)) if m else None


def attribute_error(site: Site, text: str, off: Offsets, root: Node) -> Iterator[Candidate]:
    found = _missing_attribute(site)
    if found is None:
        return
    owner_type, attr = found
    for node in _nodes_on(root, site.line, "attribute"):
        obj, field = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if obj is None or field is None or text_of(field) != attr:
            continue
        if owner_type == "NoneType":
            if site.result.exc_type != "AttributeError":
                # A checker's finding, no test failing: first narrow it keeping what the code does (it failed
                # on None before and still does), then the guards that change what None gives.
                yield from _assert_before(node, off, f"{text_of(obj)} is not None", site)
            yield from _guard_before(node, off, f"{text_of(obj)} is None", site, "none_guard")
            continue
        known = [a for a in attributes_of(root, text_of(obj)) if a != attr]
        for other in difflib.get_close_matches(attr, known, n=3, cutoff=0.5):
            yield _fix(site, off, TextEdit(off.char(field.start_byte), off.char(field.end_byte), other),
                      "rename_attribute", f"{text_of(obj)}.{attr} -> {text_of(obj)}.{other}")


def zero_division(site: Site, text: str, off: Offsets, root: Node) -> Iterator[Candidate]:
    if site.result.exc_type != "ZeroDivisionError":
        return
    for node in _nodes_on(root, site.line, "binary_operator"):
        op, right = node.child_by_field_name("operator"), node.child_by_field_name("right")
        if op is not None and right is not None and text_of(op) in ("/", "//", "%"):
            yield from _guard_before(node, off, f"not {text_of(right)}", site, "zero_guard")


DOMAIN_FUNCTIONS = frozenset({"log", "log10", "log2", "log1p", "sqrt", "acos", "asin", "acosh", "atanh", "pow"})
GUARDED_VALUES = ("0", "0.0", "None")


def guarded_value(site: Site, text: str, off: Offsets, root: Node) -> Iterator[Candidate]:
    """`x = E` -> `x = E if D != 0 else 0`: the operand the failing operation cannot take (a zero divisor, a
    logarithm's zero) tested where the value is made, for a statement a guard with `return` cannot precede."""
    if site.result.exc_type == "ZeroDivisionError":
        operands = [n.child_by_field_name("right") for n in _nodes_on(root, site.line, "binary_operator")
                    if text_of(n.child_by_field_name("operator") or n) in ("/", "//", "%")]
        tests = ("{} != 0",)
    elif site.result.exc_type == "ValueError" and "math domain error" in site.result.message:
        calls = [n for n in _nodes_on(root, site.line, "call")
                 if text_of(n.child_by_field_name("function") or n).split(".")[-1] in DOMAIN_FUNCTIONS]
        operands = [(c.child_by_field_name("arguments") or c).named_children[0] for c in calls
                    if (c.child_by_field_name("arguments") or c).named_child_count]
        tests = ("{} != 0", "{} > 0")
    else:
        return
    for operand in operands:
        value = _made_value(operand) if operand is not None else None
        if value is None:
            continue
        made = text_of(value) if value.type not in ("conditional_expression", "lambda") else f"({text_of(value)})"
        for test in tests:
            condition = test.format(text_of(operand))  # type: ignore[arg-type]
            for default in GUARDED_VALUES:
                yield _fix(site, off, TextEdit(off.char(value.start_byte), off.char(value.end_byte),
                                               f"{made} if {condition} else {default}"),
                           "guarded_value", f"{text_of(value)} -> ... if {condition} else {default}")


def _made_value(node: Node) -> Node | None:
    """The right side of the assignment, or the returned value, that holds `node` on one line."""
    cur: Node | None = node
    while cur is not None and cur.parent is not None:
        parent = cur.parent
        if parent.type == "assignment" and parent.child_by_field_name("right") == cur or \
                parent.type == "return_statement":
            return cur if "\n" not in text_of(cur) else None
        if parent.type in ("block", "module", "function_definition", "lambda"):
            return None
        cur = parent
    return None


def index_error(site: Site, text: str, off: Offsets, root: Node) -> Iterator[Candidate]:
    if site.result.exc_type not in ("IndexError", "KeyError", "TypeError"):
        return
    none_subscript = "'NoneType' object is not subscriptable" in site.result.message
    if site.result.exc_type == "TypeError" and not none_subscript:
        return
    for node in _nodes_on(root, site.line, "subscript"):
        value = node.child_by_field_name("value")
        index = node.child_by_field_name("subscript")
        if value is None or index is None:
            continue
        if site.result.exc_type == "KeyError":
            start, end = off.char(node.start_byte), off.char(node.end_byte)
            yield _fix(site, off, TextEdit(start, end, f"{text_of(value)}.get({text_of(index)})"),
                      "key_get", f"{text_of(node)} -> .get()")
            for name in names_in_scope(node)[:8]:
                if name not in (text_of(value), text_of(index)) and kind_of(name, node) not in NOT_VALUES:
                    yield _fix(site, off, TextEdit(start, end, f"{text_of(value)}.get({text_of(index)}, {name})"),
                              "key_get", f"{text_of(node)} -> .get(..., {name})")
        elif none_subscript:
            yield from _guard_before(node, off, f"{text_of(value)} is None", site, "none_guard")
        else:
            yield from _guard_before(node, off, f"not {text_of(value)}", site, "index_guard")


def recursion_error(site: Site, text: str, off: Offsets, root: Node) -> Iterator[Candidate]:
    """A missing base case: insert `if <param> <test>: return <value>` at the top of the recursive function."""
    if site.result.exc_type != "RecursionError":
        return
    names = Counter(f.function for f in site.result.frames if f.in_project and f.path == site.path)
    if not names:
        return
    target = names.most_common(1)[0][0]
    for fn in walk(root):
        name = fn.child_by_field_name("name") if fn.type == "function_definition" else None
        body = fn.child_by_field_name("body")
        params = fn.child_by_field_name("parameters")
        if name is None or text_of(name) != target or body is None or params is None or not body.named_child_count:
            continue
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_child_count and first.named_children[0].type == "string":
            if body.named_child_count < 2:
                continue
            first = body.named_children[1]
        start = off.char(first.start_byte)
        line_start = off.text.rfind("\n", 0, start) + 1
        indent = off.text[line_start:start]
        for p in [text_of(p) for p in params.named_children if p.type == "identifier" and text_of(p) not in ("self", "cls")]:
            for test in (f"{p} == 0", f"{p} <= 1", f"{p} <= 0", f"not {p}", f"{p} == 1"):
                for value in ("0", "1", p, "[]", "None", '""'):
                    snippet = f"{indent}if {test}:\n{indent}    return {value}\n"
                    yield _fix(site, off, TextEdit(line_start, line_start, snippet), "base_case",
                              f"base case: if {test}: return {value}")


def assertion_literals(site: Site, text: str, off: Offsets, root: Node) -> Iterator[Candidate]:
    """`assert 1800 == 5400`: try literal changes that close the gap between actual and expected."""
    if site.result.exc_type != "AssertionError":
        return
    pair = expected_actual(site.result.message)
    if pair is None:
        return
    actual, expected = pair
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (actual, expected)) or actual == expected:
        return
    for node in _literals_feeding(root, site.line):
        try:
            value = ast.literal_eval(text_of(node))
        except (ValueError, SyntaxError):
            continue
        options = [value + (expected - actual)]
        if actual:
            options.append(value * expected / actual)
        for new in options:
            if isinstance(new, float) and new.is_integer() and node.type == "integer":
                new = int(new)
            if new != value and new >= 0:
                yield _fix(site, off, TextEdit(off.char(node.start_byte), off.char(node.end_byte), repr(new)),
                          "assert_literal", f"{value} -> {new} (expected {expected!r}, got {actual!r})")


def _literals_feeding(root: Node, line: int) -> list[Node]:
    """Number literals on the line, and in module-level constants the line reads (`UNITS = {"h": 60}`)."""
    used = {text_of(n) for n in walk(root) if n.type == "identifier" and n.start_point[0] + 1 == line}
    out = [n for n in walk(root) if n.type in ("integer", "float") and n.start_point[0] + 1 == line]
    for stmt in root.named_children:
        assign = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_child_count else None
        left = assign.child_by_field_name("left") if assign is not None and assign.type == "assignment" else None
        if left is not None and text_of(left) in used:
            out.extend(n for n in walk(assign) if n.type in ("integer", "float"))  # type: ignore[arg-type]
    return out


def expected_actual(message: str) -> tuple[object, object] | None:
    """(actual, expected) from pytest's `assert <actual> == <expected>` message."""
    m = re.match(r"assert (.+?) == (.+?)$", message.splitlines()[0].strip() if message else "")
    if not m:
        return None
    try:
        return ast.literal_eval(m.group(1)), ast.literal_eval(m.group(2))
    except (ValueError, SyntaxError):
        return None


TEMPLATES: tuple[Template, ...] = (attribute_error, zero_division, guarded_value, index_error,
                                   recursion_error, assertion_literals)


def template_fixes(sites: list[Site], sources: Mapping[str, str]) -> Iterator[Candidate]:
    for site in sites:
        text = sources.get(site.path)
        if text is None:
            continue
        root = parse(text).root_node
        off = Offsets(text)
        yield from name_error(site, off, root, sources)  # the one template that looks in other files
        for template in TEMPLATES:
            yield from template(site, text, off, root)

"""Hypothesis's ghostwriter's tests of the target, kept or not. The text comes out of the sandbox, where the
project's interpreter wrote it (`sandbox_record.py`): it is untrusted. It is parsed with `ast` (never run
here), and only `@given` test functions that call the target through its module, using nothing but their
own names, `st.*` strategies, the module's functions and a few builtins, are kept, re-printed by `ast`
(annotations dropped). Module-level strategy assignments they use (`add_operands = st.integers()`) go with
them. What is kept is then run in the sandbox and offered for review like every generated test.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable

from fixloop.application.testgen.properties import Property

MAX_TEXT = 64 * 1024
MAX_TESTS = 6
KINDS = re.compile(r"test_(roundtrip|idempotent|equivalent|fuzz|associative|commutative|identity|"
                   r"distributive|binary_operation)")
SAFE_BUILTINS = frozenset({"len", "sorted", "list", "set", "tuple", "dict", "str", "int", "float", "bool", "bytes",
                           "abs", "min", "max", "sum", "isinstance", "repr", "frozenset", "type", "range",
                           "Exception", "ValueError", "TypeError"})


def _strategy_assignment(node: ast.stmt) -> str:
    """The name of a module-level `name = st.something(...)`, or ""."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        return ""
    value = node.value
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        value = value.func.value
    if not (isinstance(value, ast.Name) and value.id == "st"):
        return ""
    for inner in ast.walk(node.value):  # its arguments too: `st.just(__import__("os"))` is no strategy to keep
        if isinstance(inner, ast.Name) and inner.id not in SAFE_BUILTINS | {"st"}:
            return ""
        if isinstance(inner, ast.Attribute) and inner.attr.startswith("_") or isinstance(inner, ast.Lambda):
            return ""
    return node.targets[0].id


def _given(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "given"
               for d in fn.decorator_list) and len(fn.decorator_list) == 1


def _names_ok(fn: ast.FunctionDef, module_alias: str, functions: set[str], strategies: set[str]) -> bool:
    own = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    own |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    allowed = own | strategies | SAFE_BUILTINS | {"st", "given", module_alias}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id not in allowed:
            return False
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                return False
            if isinstance(node.value, ast.Name) and node.value.id == module_alias and node.attr not in functions:
                return False
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Lambda)):
            return False
    return True


def _calls_target(fn: ast.FunctionDef, module: str, function: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == function and ast.unparse(n.value) == module
               for n in ast.walk(fn))


def _strip_annotations(fn: ast.FunctionDef) -> ast.FunctionDef:
    for a in fn.args.args + fn.args.kwonlyargs:
        a.annotation = None
    fn.returns = None
    return fn


def ghostwritten(text: str, module: str, function: str, functions: Iterable[str]) -> tuple[list[Property], str]:
    """The ghostwriter's property tests of `module.function` worth keeping, and why none were (or "")."""
    if len(text) > MAX_TEXT:
        return [], "the ghostwriter's text is too long"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], "the ghostwriter's text does not parse"
    known = set(functions)
    imported = any(isinstance(n, ast.Import) and any(a.name == module and a.asname is None for a in n.names)
                   for n in tree.body)
    if not imported:
        return [], f"the ghostwriter's tests do not import {module} as expected"
    strategies = {name: node for node in tree.body if (name := _strategy_assignment(node))}
    props: list[Property] = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and KINDS.match(node.name) and _given(node)):
            continue
        if len(props) >= MAX_TESTS or not _calls_target(node, module, function):
            continue
        chained = _rebase(node, module)
        if not _names_ok(chained, "_gw_module", known, set(strategies)):
            continue
        used = [strategies[n.id] for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in strategies]
        head = "".join(ast.unparse(s) + "\n" for s in dict.fromkeys(used))
        settings = "@settings(max_examples=100, deadline=None, database=None, derandomize=True)\n"
        source = head + settings + ast.unparse(_strip_annotations(node)) + "\n"
        kind = KINDS.match(node.name).group(1)  # type: ignore[union-attr]
        props.append(Property(node.name, "ghostwriter", source, (), f"Hypothesis's ghostwriter: {kind}"))
    return props, "" if props else "the ghostwriter wrote no property test of it worth keeping"


def _rebase(fn: ast.FunctionDef, module: str) -> ast.FunctionDef:
    """A copy where `pkg.mod.f` reads `_gw_module.f` (so the name check sees one name for the module)."""
    copy = ast.parse(ast.unparse(fn)).body[0]
    assert isinstance(copy, ast.FunctionDef)

    class Rebase(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if ast.unparse(node.value) == module:
                return ast.copy_location(ast.Attribute(ast.Name("_gw_module", ast.Load()), node.attr, node.ctx), node)
            self.generic_visit(node)
            return node

    return Rebase().visit(copy)  # type: ignore[no-any-return]

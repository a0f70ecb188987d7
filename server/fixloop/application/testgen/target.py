"""The function to write tests for, found statically: `PATH::function` or `PATH::Class.method`.

The project's source is data here: it is parsed with tree-sitter, never imported on the host.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable

from tree_sitter import Node

from fixloop.kit.entities import enclosing, index_of
from fixloop.kit.treesitter import parser


class TestgenError(ValueError):
    """Bad input or a function that cannot be tested; the message is for the user. Nothing is written."""

    __test__ = False


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str = ""  # the hint's source text, "" without one
    default: str = ""  # the default's source text, "" without one
    kind: str = "plain"  # plain | star (*args) | double_star (**kwargs) | keyword (after *)


@dataclass(frozen=True)
class Target:
    path: str  # workspace-relative, forward slashes
    module: str  # the import name, e.g. "pkg.mod"
    import_root: str  # the folder (relative, "" for the workspace) that must be on sys.path for `module`
    function: str  # the function's own name
    cls: str = ""  # the class holding the method, "" for a module-level function
    params: tuple[Param, ...] = ()  # without self/cls
    returns: str = ""
    docstring: str = ""
    is_async: bool = False
    kind: str = "function"  # function | method | staticmethod | classmethod
    line: int = 0  # 0-based line of the `def`

    @property
    def qualname(self) -> str:
        return f"{self.cls}.{self.function}" if self.cls else self.function

    @property
    def label(self) -> str:
        return f"{self.path}::{self.qualname}"


def parse_spec(spec: str) -> tuple[str, str]:
    """`PATH::function` / `PATH::Class.method` -> (path, qualname)."""
    path, sep, qualname = spec.partition("::")
    if not sep or not path or not qualname:
        raise TestgenError(f"name the function as PATH::function or PATH::Class.method, got {spec!r:.200}")
    parts = qualname.split(".")
    if len(parts) > 2 or not all(p.isidentifier() for p in parts):
        raise TestgenError(f"{qualname!r:.100} is not a function name or Class.method")
    return path, qualname


def module_name(rel: str, has_init: Callable[[str], bool]) -> tuple[str, str]:
    """(module, import root) of a workspace-relative file: the import root is the folder above the topmost
    package (the folders holding `__init__.py`), e.g. `src/pkg/mod.py` -> ("pkg.mod", "src")."""
    parts = PurePosixPath(rel).with_suffix("").parts
    folders = list(parts[:-1])
    top = len(folders)
    while top > 0 and has_init("/".join(folders[:top]) + "/__init__.py"):
        top -= 1
    return ".".join(parts[top:]), "/".join(folders[:top])


def find(source: str, rel: str, qualname: str, module: str, import_root: str) -> Target:
    tree = parser().parse(source.encode("utf-8"))
    names = qualname.split(".")
    scope: Node = tree.root_node
    cls = ""
    if len(names) == 2:
        found = _child_def(scope, "class_definition", names[0])
        if found is None:
            raise TestgenError(f"{rel} has no class {names[0]!r} at the top level")
        cls = names[0]
        body = found.child_by_field_name("body")
        assert body is not None
        scope = body
    fn = _child_def(scope, "function_definition", names[-1])
    if fn is None:
        where = f"class {cls}" if cls else rel
        raise TestgenError(f"{where} has no function {names[-1]!r}" + ("" if cls else " at the top level"))
    return _target(fn, source, rel, module, import_root, cls)


def function_at(source: str, line: int) -> str | None:
    """The qualname (`f` or `Class.method`) of the top-level function or method whose definition (decorators
    excluded) holds the 0-based `line`: the file's entity index read, nothing parsed again."""
    entity = enclosing(index_of("", source), line + 1)
    return entity.name if entity is not None and entity.name.count(".") <= 1 else None


def _unwrap(node: Node) -> Node:
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return inner if inner is not None else node
    return node


def _name(node: Node) -> str:
    name = node.child_by_field_name("name")
    return name.text.decode("utf-8") if name is not None and name.text is not None else ""


def _child_def(scope: Node, kind: str, name: str) -> Node | None:
    for child in scope.named_children:
        inner = _unwrap(child)
        if inner.type == kind and _name(inner) == name:
            return inner
    return None


def _decorators(fn: Node) -> list[str]:
    parent = fn.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [(d.text or b"").decode("utf-8").lstrip("@").strip() for d in parent.named_children if d.type == "decorator"]


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8") if node is not None else ""


def _params(fn: Node) -> list[Param]:
    out: list[Param] = []
    after_star = False
    for p in (fn.child_by_field_name("parameters") or fn).named_children:
        if p.type == "identifier":
            out.append(Param(_text(p), kind="keyword" if after_star else "plain"))
        elif p.type in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name_node = p.child_by_field_name("name") or p.named_children[0]
            if name_node.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                star = "star" if name_node.type == "list_splat_pattern" else "double_star"
                after_star = after_star or star == "star"
                out.append(Param(_text(name_node).lstrip("*"), _text(p.child_by_field_name("type")), kind=star))
                continue
            out.append(Param(_text(name_node), _text(p.child_by_field_name("type")),
                             _text(p.child_by_field_name("value")), "keyword" if after_star else "plain"))
        elif p.type == "list_splat_pattern":
            after_star = True
            out.append(Param(_text(p).lstrip("*"), kind="star"))
        elif p.type == "dictionary_splat_pattern":
            out.append(Param(_text(p).lstrip("*"), kind="double_star"))
        elif p.type == "keyword_separator":
            after_star = True
    return out


def _target(fn: Node, source: str, rel: str, module: str, import_root: str, cls: str) -> Target:
    decorators = _decorators(fn)
    kind = "function"
    params = _params(fn)
    if cls:
        kind = "staticmethod" if "staticmethod" in decorators else (
            "classmethod" if "classmethod" in decorators else "method")
        if kind != "staticmethod" and params:
            params = params[1:]  # self / cls
    body = fn.child_by_field_name("body")
    docstring = ""
    if body is not None and body.named_children and body.named_children[0].type == "expression_statement":
        first = body.named_children[0].named_children
        if first and first[0].type == "string":
            try:
                value = ast.literal_eval(_text(first[0]))
                docstring = value if isinstance(value, str) else ""
            except (ValueError, SyntaxError):
                docstring = ""
    is_async = _text(fn).startswith("async")
    return Target(rel, module, import_root, _name(fn), cls, tuple(params), _text(fn.child_by_field_name("return_type")),
                  docstring, is_async, kind, fn.start_point[0])


def module_functions(source: str) -> set[str]:
    """The names of the module's top-level functions."""
    tree = parser().parse(source.encode("utf-8"))
    return {_name(_unwrap(n)) for n in tree.root_node.named_children if _unwrap(n).type == "function_definition"}

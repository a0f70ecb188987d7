"""The entities of one Python source, read by tree-sitter (static: the file is parsed, never imported or run).

An entity is a module, a class, a function, a method or a test, named `module::Qual.name` (the module
dotted from its path: `shop/pricing.py` -> `shop.pricing`, `shop/__init__.py` -> `shop`). Besides the
entities, a file's index keeps the references it makes, unresolved: the names each entity calls (`foo`,
`self.foo`, `mod.foo`) and the modules and names the file imports. `graph.CodeGraph` resolves them
across files, so re-indexing one saved file never needs the others.

Functions nested in a function are part of it (their calls count as its calls); classes nest.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fixloop.core.integrity import is_test_file

MODULE, CLASS, FUNCTION, METHOD, TEST = "module", "class", "function", "method", "test"
CALLABLE = frozenset({FUNCTION, METHOD, TEST})
MAX_REFS_PER_FILE = 20_000  # a generated file with a million calls must not fill the graph


@dataclass(frozen=True)
class Entity:
    id: str  # module::Qual.name, or the module's dotted name for the module itself
    kind: str  # module | class | function | method | test
    path: str  # relative, forward slashes
    name: str  # the qualified name inside the module ("" for the module)
    line: int  # 1-based first line (the `def`/`class`, decorators excluded)
    end_line: int  # 1-based last line
    column: int = 0  # the name's first character on `line` (0-based, in characters)
    end_column: int = 0

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1] if self.name else self.id.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Ref:
    """A reference as written, resolved later by the graph."""

    src: str  # the entity that makes it
    kind: str  # calls | imports
    target: str  # calls: "foo", "self.foo", "mod.foo"; imports: an absolute dotted name ("pkg.mod" or "pkg.mod.f")
    alias: str = ""  # imports: the name bound in the importing module


@dataclass(frozen=True)
class FileIndex:
    path: str
    module: str
    entities: tuple[Entity, ...]
    refs: tuple[Ref, ...]
    digest: str  # of the text, so an unchanged file is not written again
    ok: bool = True  # False: the source did not parse cleanly (the graph keeps the last good index)


def module_name(path: str) -> str:
    parts = path.replace("\\", "/").removesuffix(".py").split("/")
    if parts and parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(p for p in parts if p)


def entity_id(module: str, name: str = "") -> str:
    return f"{module}::{name}" if name else module


def test_entity_id(nodeid: str) -> str:
    """The entity a pytest node id names: `tests/test_x.py::TestC::test_y[1]` -> `tests.test_x::TestC.test_y`."""
    path, _, rest = nodeid.partition("::")
    name = ".".join(part.split("[", 1)[0] for part in rest.split("::") if part)
    return entity_id(module_name(path), name)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def index_source(path: str, text: str) -> FileIndex:
    """Entities and references of `text`; `ok` is False when tree-sitter found a syntax error."""
    from fixloop.kit.treesitter import parser

    data = text.encode("utf-8", "surrogatepass")
    tree = parser().parse(data)
    module = module_name(path)
    walker = _Walker(path, module, data, is_test_file(path))
    root = tree.root_node
    walker.entities.append(Entity(module, MODULE, path, "", 1, max(1, root.end_point[0] + 1)))
    walker.walk(root)
    return FileIndex(path, module, tuple(walker.entities), tuple(walker.refs[:MAX_REFS_PER_FILE]), digest(text),
                     not root.has_error)


@lru_cache(maxsize=256)
def index_of(path: str, text: str) -> FileIndex:
    """`index_source`, parsed once per text: every reader of a file's entities shares it."""
    return index_source(path, text)


def enclosing(index: FileIndex, line: int, kinds: frozenset[str] = CALLABLE) -> Entity | None:
    """The innermost entity of `kinds` whose lines hold `line`."""
    best: Entity | None = None
    for e in index.entities:
        if e.kind in kinds and e.line <= line <= e.end_line and (best is None or e.line >= best.line):
            best = e
    return best


class _Walker:
    """One pass over the tree: a stack of enclosing classes and the entity calls are charged to."""

    def __init__(self, path: str, module: str, data: bytes, test_file: bool) -> None:
        self.path, self.module, self.data, self.test_file = path, module, data, test_file
        self.package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        self.entities: list[Entity] = []
        self.refs: list[Ref] = []

    def walk(self, root: Any) -> None:
        # (node, class names around it, the entity its calls belong to, inside a function?)
        stack: list[tuple[Any, tuple[str, ...], str, bool]] = [(root, (), self.module, False)]
        while stack:
            node, classes, owner, nested = stack.pop()
            kind = node.type
            body = node.child_by_field_name("body") if kind in ("class_definition", "function_definition") else None
            if kind == "class_definition" and not nested:
                entity = self._define(node, classes, CLASS)
                if entity is not None and body is not None:
                    stack.extend((c, (*classes, entity.short), owner, False) for c in reversed(body.children))
                    continue
            elif kind == "function_definition" and not nested:
                entity = self._define(node, classes, self._function_kind(node, classes))
                if entity is not None and body is not None:
                    stack.extend((c, classes, entity.id, True) for c in reversed(body.children))
                    continue
            elif kind == "call":
                self._call(node, owner)
            elif kind in ("import_statement", "import_from_statement"):
                self._imports(node, owner)
            stack.extend((c, classes, owner, nested) for c in reversed(node.children))

    def _text(self, node: Any) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def _column(self, node: Any) -> int:
        line_start = node.start_byte - node.start_point[1]
        return len(self.data[line_start:node.start_byte].decode("utf-8", "replace"))

    def _function_kind(self, node: Any, classes: tuple[str, ...]) -> str:
        name_node = node.child_by_field_name("name")
        name = self._text(name_node) if name_node is not None else ""
        if self.test_file and name.startswith("test") and (not classes or classes[-1].startswith("Test")):
            return TEST
        return METHOD if classes else FUNCTION

    def _define(self, node: Any, classes: tuple[str, ...], kind: str) -> Entity | None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        name = ".".join((*classes, self._text(name_node)))
        column = self._column(name_node)
        entity = Entity(entity_id(self.module, name), kind, self.path, name, node.start_point[0] + 1,
                        node.end_point[0] + 1, column, column + len(self._text(name_node)))
        self.entities.append(entity)
        return entity

    def _call(self, node: Any, owner: str) -> None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return
        if fn.type == "identifier":
            self.refs.append(Ref(owner, "calls", self._text(fn)))
        elif fn.type == "attribute":
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            if attr is None:
                return
            head = self._text(obj) if obj is not None and obj.type in ("identifier", "attribute") else ""
            self.refs.append(Ref(owner, "calls", f"{head}.{self._text(attr)}" if head else self._text(attr)))

    def _absolute(self, node: Any) -> str:
        """A module name as imported, made absolute when it is relative (`.x`, `..x`)."""
        text = self._text(node)
        if not text.startswith("."):
            return text
        dots = len(text) - len(text.lstrip("."))
        base = self.package.split(".") if self.package else []
        base = base[: len(base) - (dots - 1)] if dots > 1 else base
        rest = text[dots:]
        return ".".join([*base, rest] if rest else base)

    def _imports(self, node: Any, owner: str) -> None:
        if node.type == "import_statement":
            for child in node.children_by_field_name("name"):
                if child.type == "aliased_import":
                    name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
                    if name is not None and alias is not None:
                        self.refs.append(Ref(owner, "imports", self._text(name), self._text(alias)))
                elif child.type == "dotted_name":
                    target = self._text(child)
                    self.refs.append(Ref(owner, "imports", target, target.split(".", 1)[0]))
            return
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        base = self._absolute(module_node)
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
                if name is not None and alias is not None:
                    self.refs.append(Ref(owner, "imports", f"{base}.{self._text(name)}".strip("."), self._text(alias)))
            elif child.type == "dotted_name":
                name = self._text(child)
                self.refs.append(Ref(owner, "imports", f"{base}.{name}".strip("."), name.rsplit(".", 1)[-1]))

"""tree-sitter helpers shared by the repair engine: parse, walk, and byte/character offsets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Generic, Iterator, TypeVar

from tree_sitter import Node, Tree

from fixloop.kit.treesitter import parser as _parser


T = TypeVar("T")


class ByText(Generic[T]):
    """What `make` reads from a node, kept by the node's text (the same text reads the same wherever it is
    parsed), up to `limit` texts: the search asks of each function at every node of every suspect line.
    Values, never nodes, are kept: a node keeps its whole parse tree alive."""

    def __init__(self, make: Callable[[Node], T], limit: int) -> None:
        self.make = make
        self.limit = limit
        self.kept: dict[bytes, T] = {}

    def __call__(self, node: Node) -> T:
        key = node.text or b""
        got = self.kept.get(key)
        if got is None:
            if len(self.kept) > self.limit:
                self.kept.clear()
            got = self.kept[key] = self.make(node)
        return got


@lru_cache(maxsize=16)
def parse(text: str) -> Tree:
    """One tree per text: the proposers, the localizer and the templates each ask for the same suspect file's
    tree (a 5,000-line module took 0.04 s each time, seven times before the first candidate). Trees are
    never edited in place here (a caller that edits one copies it first)."""
    return _parser().parse(text.encode("utf-8"))


def parses(text: str) -> bool:
    return not parse(text).root_node.has_error


def walk(node: Node) -> Iterator[Node]:
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            yield cursor.node  # type: ignore[misc]
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


class Offsets:
    """Maps tree-sitter byte offsets to character offsets of the decoded text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._data = text.encode("utf-8")

    def char(self, byte_offset: int) -> int:
        if self.ascii:
            return byte_offset
        return len(self._data[:byte_offset].decode("utf-8", "replace"))


@dataclass(frozen=True)
class Function:
    name: str
    start_line: int  # 1-based, inclusive
    end_line: int


@lru_cache(maxsize=256)
def functions_in(text: str) -> tuple[Function, ...]:
    out: list[Function] = []
    for node in walk(parse(text).root_node):
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None and name.text is not None:
                out.append(Function(name.text.decode("utf-8", "replace"), node.start_point[0] + 1, node.end_point[0] + 1))
    return tuple(out)


@lru_cache(maxsize=256)
def code_lines(text: str) -> frozenset[int]:
    """Lines that run when a function is called: function bodies without their docstring, and lambdas.

    Everything else (module and class statements, `def` signatures and decorators, constants, defaults)
    runs once, when the module is imported: whichever test imports it first records those lines, so
    they say nothing about that test's path, and coverage must not rank them as if they did.
    """
    out: set[int] = set()
    for node in walk(parse(text).root_node):
        if node.type == "lambda":
            body = node.child_by_field_name("body")
            if body is not None:
                out.update(range(body.start_point[0] + 1, body.end_point[0] + 2))
        elif node.type == "function_definition":
            body = node.child_by_field_name("body")
            statements = body.named_children if body is not None else []
            first = statements[0] if statements else None
            if first is not None and first.type == "expression_statement" and first.named_child_count == 1 \
                    and first.named_children[0].type == "string" and len(statements) > 1:
                first = statements[1]
            if first is not None and body is not None:
                out.update(range(first.start_point[0] + 1, body.end_point[0] + 2))
    return frozenset(out)


def text_of(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def is_name_use(node: Node) -> bool:
    """An identifier read as a value: not a definition name, attribute field, keyword or parameter."""
    parent = node.parent
    if node.type != "identifier" or parent is None:
        return False
    if parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
        return False
    if parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
        return False
    if parent.type in ("function_definition", "class_definition", "parameters", "default_parameter",
                       "typed_parameter", "typed_default_parameter", "dotted_name", "aliased_import",
                       "import_from_statement", "global_statement", "nonlocal_statement", "lambda_parameters"):
        return False
    if parent.type in ("assignment", "augmented_assignment", "for_statement") and parent.child_by_field_name("left") == node:
        return False
    return True


def enclosing(node: Node, *types: str) -> Node | None:
    cur = node.parent
    while cur is not None and cur.type not in types:
        cur = cur.parent
    return cur


def root_of(node: Node) -> Node:
    """The module node `node` belongs to."""
    while node.parent is not None:
        node = node.parent
    return node


def is_docstring(node: Node) -> bool:
    """A string that is a statement of its own (a docstring, or a comment written as a string)."""
    parent = node.parent
    return parent is not None and parent.type == "expression_statement" and parent.named_child_count == 1


def parameter_name(p: Node) -> Node | None:
    """The identifier a parameter binds (`x`, `x: int`, `x=1`, `*xs`, `**kw`), or None (`/`, `*`)."""
    return p if p.type == "identifier" else p.child_by_field_name("name") or next(
        (c for c in p.named_children if c.type == "identifier"), None)


def _bound_names(scope: Node) -> list[str]:
    """Parameters and assigned names in a function (or module), nested definitions excluded; then the names
    its imports bind."""
    names: list[str] = []
    imported: list[str] = []
    params = scope.child_by_field_name("parameters") if scope.type == "function_definition" else None
    if params is not None:
        for p in params.named_children:
            ident = parameter_name(p)
            if ident is not None and ident.type == "identifier":
                names.append(text_of(ident))
    body = scope.child_by_field_name("body") if scope.type != "module" else scope
    stack = list(body.named_children) if body is not None else []
    while stack:
        node = stack.pop()
        if node.type in ("function_definition", "class_definition", "lambda"):
            if scope.type == "module" and node.type != "lambda":
                name = node.child_by_field_name("name")
                if name is not None:
                    names.append(text_of(name))
            continue
        if node.type in ("assignment", "augmented_assignment", "for_statement", "for_in_clause"):
            left = node.child_by_field_name("left")
            if left is not None:
                for sub in walk(left):
                    if sub.type == "identifier" and (sub.parent is None or sub.parent.type != "attribute"):
                        names.append(text_of(sub))
        if node.type in ("import_statement", "import_from_statement"):
            imported.extend(_imported_names(node))
            continue
        stack.extend(node.named_children)
    seen: dict[str, None] = {}
    for n in names + imported:  # imported names last: the names a scope defines are likelier to be meant
        seen.setdefault(n, None)
    return list(seen)


def _imported_names(statement: Node) -> list[str]:
    """The names an import binds: `import a.b` binds `a`, `from .m import x as y` binds `y` (never `m`)."""
    out: list[str] = []
    for name in statement.children_by_field_name("name"):
        alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
        if alias is not None:
            out.append(text_of(alias))
        elif name.type == "dotted_name":
            out.append(text_of(name).split(".")[0])
    return out


def local_names(scope: Node) -> list[str]:
    """Parameters and names assigned in a function (nested definitions excluded), first seen first."""
    return list(_locals_of(scope))


_locals_of = ByText(_bound_names, 1_024)  # asked at every node a replacement may go


def names_in_scope(node: Node) -> list[str]:
    """Names a replacement at `node` may use: its function's locals first, then module names."""
    fn = enclosing(node, "function_definition")
    local = list(_locals_of(fn)) if fn is not None else []
    root = node
    while root.parent is not None:
        root = root.parent
    module = [n for n in _module_names(root.text or b"") if n not in local]
    return local + module


SCOPES_OF_THEIR_OWN = ("lambda", "list_comprehension", "set_comprehension", "dictionary_comprehension",
                       "generator_expression")
LOOPS = ("for_statement", "while_statement")


def unbound_at(node: Node, name: str) -> bool:
    """Whether reading the local `name` at `node` must fail: the function binds it (so it is local throughout),
    it is no parameter, it appears nowhere before the statement of `node`, and no loop could bring a binding
    from a later line round. Unsure cases (comprehensions, lambdas, loops) say False."""
    fn = enclosing(node, "function_definition")
    if fn is None:
        return False
    bound, first_seen = _bindings(fn)
    if name not in bound:
        return False
    cur = node.parent
    while cur is not None and cur != fn:
        if cur.type in SCOPES_OF_THEIR_OWN or cur.type in LOOPS:
            return False
        cur = cur.parent
    statement = node
    while statement.parent is not None and statement.parent != fn and not statement.type.endswith("statement"):
        statement = statement.parent
    first = first_seen.get(name)
    return first is not None and first >= statement.start_byte - fn.start_byte


_BINDINGS: dict[bytes, tuple[frozenset[str], dict[str, int]]] = {}


def _bindings(fn: Node) -> tuple[frozenset[str], dict[str, int]]:
    """The function's bound names, and name -> where its body first mentions it (bytes from the `def`;
    parameters at -1); once per function text (asked for every name at every identifier)."""
    key = fn.text or b""
    found = _BINDINGS.get(key)
    if found is None:
        if len(_BINDINGS) > 256:
            _BINDINGS.clear()
        first: dict[str, int] = {}
        params = fn.child_by_field_name("parameters")
        for n in walk(params) if params is not None else ():
            if n.type == "identifier":
                first[text_of(n)] = -1
        body = fn.child_by_field_name("body")
        for n in walk(body) if body is not None else ():
            if n.type == "identifier" and not _is_field_name(n):
                first.setdefault(text_of(n), n.start_byte - fn.start_byte)
        found = _BINDINGS[key] = (frozenset(_bound_names(fn)), first)
    return found


def _is_field_name(node: Node) -> bool:
    """`x.name` and `f(name=...)`: a field or keyword, not the variable."""
    parent = node.parent
    return parent is not None and ((parent.type == "attribute" and parent.child_by_field_name("attribute") == node)
                                   or (parent.type == "keyword_argument" and parent.child_by_field_name("name") == node))


@lru_cache(maxsize=32)
def _module_names(source: bytes) -> tuple[str, ...]:
    """Module-level names, once per source text (asked for at every identifier)."""
    return tuple(_bound_names(_parser().parse(source).root_node))


def attributes_of(root: Node, owner: str) -> list[str]:
    """Attribute names used on `owner` (e.g. `self`) anywhere in the tree."""
    return list(_attributes(root.text or b"").get(owner, ()))


def attributes_on(node: Node, owner: str) -> list[str]:
    """Attribute names used on `owner` where `node` is: on `self` or `cls`, in the enclosing class and the
    classes of the same file it derives from (another class's `self` is another object); on any other
    name, anywhere in the file."""
    cls = enclosing(node, "class_definition") if owner in ("self", "cls") else None
    if cls is None:
        return attributes_of(root_of(node), owner)
    bases = cls.child_by_field_name("superclasses")
    names = {text_of(b) for b in bases.named_children} if bases is not None else set()
    scopes = [cls] + [c for c in root_of(node).named_children if c.type == "class_definition"
                      and text_of(c.child_by_field_name("name") or c) in names]
    seen: dict[str, None] = {}
    for scope in scopes:
        seen.update(dict.fromkeys(attributes_of(scope, owner)))
    return list(seen)


@lru_cache(maxsize=256)  # the file's text and each class's
def _attributes(source: bytes) -> dict[str, tuple[str, ...]]:
    """Owner text -> the attribute names used on it, in order of first use: one walk per source text
    (operators ask at every attribute of every suspect line)."""
    out: dict[str, dict[str, None]] = {}
    for node in walk(_parser().parse(source).root_node):
        if node.type == "attribute":
            obj = node.child_by_field_name("object")
            attr = node.child_by_field_name("attribute")
            if obj is not None and attr is not None:
                out.setdefault(text_of(obj), {}).setdefault(text_of(attr), None)
    return {owner: tuple(names) for owner, names in out.items()}

"""Suspects outside function bodies: the values a suspect line reads that were bound at import.

A parameter's default, a module constant and a class attribute are evaluated once, when their module
is imported, before any test starts: per-test coverage never ranks them (and `code_lines` keeps it from
ranking the lines they are on as if a test had run them). They become suspects through the lines that
read them, scored from those lines' suspicion:

- a name a suspect line reads that is a parameter with a default, of its function or one around it;
- a module-level name it reads (in its own module, or imported from another module of the project),
  or `module.NAME` of a project module it imported;
- `self.NAME`, `cls.NAME` or `Class.NAME` of a class-level assignment (in the class or its bases), and
  `obj.NAME` of a class attribute that exactly one class of the module and its imports defines (a
  dataclass field read through an instance);
- `self.NAME` set in `__init__` from a parameter with a default: that default; set from `other.NAME2`:
  what that is bound to, as far as COPIES such steps;
- the defaults a call on the line leaves to the function it calls (weaker: the callee may not read it);
- and, when the value found is itself a module constant's name (`size=DEFAULT_SIZE`), that constant too.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from tree_sitter import Node

from fixloop.core.model import Suspect
from fixloop.engines.repair.literals import CONSTANT_NAME
from fixloop.kit.syntax import enclosing, local_names, parameter_name, parse, text_of, walk

# Suspect lines whose reads are followed. Far down the list too: a value every test reads (a default, a
# padding constant) is read on lines that passing tests run as well, so those lines rank low, while the
# binding they read is the fault; the proposer gives bindings their own share of the order (mutate.py).
READERS = 400
COPIES = 3  # `self.a = other.b` steps followed from one read
MAX_LINES = 12  # lines of one value that become suspects (a long table is data, not a one-token slip)
LITERALS = ("integer", "float", "string", "true", "false", "none")
# How likely a binding read by a suspicious line is the fault, relative to that line.
DEFAULT, CONSTANT, ATTRIBUTE, SHARED, PASSED_OVER = 0.9, 0.85, 0.85, 0.6, 0.5
SELF = ("self", "cls")
BRANCHES = ("if_statement", "try_statement", "with_statement", "block", "else_clause", "elif_clause", "except_clause",
            "finally_clause")


@dataclass(frozen=True)
class Binding:
    path: str
    lines: tuple[int, ...]
    what: str  # for people: "default of size", "constant LIMIT", "Pager.size"
    factor: float


def with_bindings(suspects: Sequence[Suspect], sources: Mapping[str, str],
                  is_test_file: Callable[[str], bool]) -> tuple[Suspect, ...]:
    """`suspects` with the bindings their best lines read added, best first."""
    project = Project(sources, is_test_file)
    found: dict[tuple[str, int], Suspect] = {}
    readers = [s for s in suspects if s.score > 0 and s.path in sources and not is_test_file(s.path)][:READERS]
    for reader in readers:
        for b in project.read_at(reader.path, reader.line):
            score = round(reader.score * b.factor, 6)
            for line in b.lines:
                old = found.get((b.path, line))
                if old is None or old.score < score:
                    found[(b.path, line)] = Suspect(b.path, line, score, f"{b.what}, read at {reader.path}:{reader.line}",
                                                    reader.passing)
    merged = {(s.path, s.line): s for s in suspects}
    for key, s in found.items():
        if key not in merged or merged[key].score < s.score:
            merged[key] = s
    return tuple(sorted(merged.values(), key=lambda s: (-s.score, s.path, s.line)))


class Module:
    """One parsed file's module-level names: constants, classes, functions and imports."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.root = parse(text).root_node
        self.constants: dict[str, Node] = {}  # name -> its value
        self.classes: dict[str, Node] = {}
        self.functions: dict[str, Node] = {}
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (module, name in it; "" for the module)
        self.on_line: dict[int, list[Node]] = {}
        for node in _module_level(self.root):
            self._note(node)
        for node in walk(self.root):
            if node.type in ("identifier", "attribute", "call"):
                self.on_line.setdefault(node.start_point[0] + 1, []).append(node)

    def _note(self, node: Node) -> None:
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None:
                self.constants.setdefault(text_of(left), right)
        elif node.type in ("class_definition", "function_definition"):
            name = node.child_by_field_name("name")
            if name is not None:
                (self.classes if node.type == "class_definition" else self.functions)[text_of(name)] = node
        elif node.type == "import_statement":
            for item in node.named_children:
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                dotted = item.child_by_field_name("name") if item.type == "aliased_import" else item
                if alias is not None and dotted is not None:
                    self.imports[text_of(alias)] = (text_of(dotted), "")
                elif dotted is not None and "." not in text_of(dotted):
                    self.imports[text_of(dotted)] = (text_of(dotted), "")
        elif node.type == "import_from_statement":
            module = node.child_by_field_name("module_name")
            for item in node.children_by_field_name("name"):
                alias = item.child_by_field_name("alias") if item.type == "aliased_import" else None
                dotted = item.child_by_field_name("name") if item.type == "aliased_import" else item
                if module is not None and dotted is not None:
                    self.imports[text_of(alias if alias is not None else dotted)] = (text_of(module), text_of(dotted))


def _module_level(root: Node) -> Iterable[Node]:
    """Statements run at import: the module's own, inside `if`/`try`/`with` blocks too, never in a body."""
    stack = list(reversed(root.named_children))
    while stack:
        node = stack.pop()
        if node.type == "expression_statement" and node.named_child_count == 1:
            yield node.named_children[0]
        elif node.type == "decorated_definition":
            inner = node.child_by_field_name("definition")
            if inner is not None:
                yield inner
        elif node.type == "block":  # a branch's statements
            stack.extend(reversed(node.named_children))
        elif node.type in BRANCHES:  # its blocks and clauses, not its condition
            stack.extend(reversed([c for c in node.named_children if c.type in BRANCHES]))
        else:
            yield node


class Project:
    """The project's modules, parsed on demand, and how names in one resolve to bindings in another."""

    def __init__(self, sources: Mapping[str, str], is_test_file: Callable[[str], bool]) -> None:
        self.sources = sources
        self.is_test_file = is_test_file
        self._modules: dict[str, Module] = {}
        self._inits: dict[tuple[str, int], dict[str, tuple[str, Node]]] = {}
        self._following: set[tuple[str, int]] = set()

    def module(self, path: str) -> Module:
        if path not in self._modules:
            self._modules[path] = Module(path, self.sources[path])
        return self._modules[path]

    def read_at(self, path: str, line: int) -> list[Binding]:
        mod = self.module(path)
        out: list[Binding] = []
        for node in mod.on_line.get(line, []):
            if node.type == "identifier" and _is_read(node):
                out.extend(self._name(mod, node))
            elif node.type == "attribute" and not _is_callee(node):
                out.extend(self._attribute(mod, node))
            elif node.type == "call":
                out.extend(self._passed_over(mod, node))
        return out

    def _name(self, mod: Module, node: Node) -> list[Binding]:
        name = text_of(node)
        lam = enclosing(node, "lambda")
        while lam is not None:
            params = lam.child_by_field_name("parameters")
            if params is not None and name in {text_of(n) for n in walk(params) if n.type == "identifier"}:
                return []  # a lambda's own parameter
            lam = enclosing(lam, "lambda")
        fn = enclosing(node, "function_definition")
        while fn is not None:
            default = _defaults(fn).get(name)
            if default is not None:
                return self._binding(mod.path, default, f"default of {name}", DEFAULT) + self._named(mod, default)
            if name in local_names(fn):
                return []  # a local or a parameter without a default: bound at run time
            fn = enclosing(fn, "function_definition")
        return self._constant(mod, name, 0)

    def _named(self, mod: Module, value: Node) -> list[Binding]:
        """The module constant a value names (`size=DEFAULT_SIZE`): its own binding, one step further away."""
        if value.type != "identifier":
            return []
        return [Binding(b.path, b.lines, b.what, b.factor * CONSTANT) for b in self._constant(mod, text_of(value), 0)]

    def _constant(self, mod: Module, name: str, depth: int) -> list[Binding]:
        if name in mod.constants:
            return self._binding(mod.path, mod.constants[name], f"constant {name}", CONSTANT)
        if name in mod.imports and depth < 3:
            spec, inner = mod.imports[name]
            other = self.resolve(mod.path, spec)
            if other is not None and inner:
                return self._constant(self.module(other), inner, depth + 1)
        return []

    def _attribute(self, mod: Module, node: Node) -> list[Binding]:
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if obj is None or attr is None or obj.type != "identifier":
            return []
        owner, name = text_of(obj), text_of(attr)
        if owner in SELF:
            cls = enclosing(node, "class_definition")
            return self._class_attribute(mod, cls, name, 0) if cls is not None else []
        if owner in mod.classes:
            return self._class_attribute(mod, mod.classes[owner], name, 0)
        target = self._imported(mod, owner)
        if target is not None:
            other, kind = target
            if kind == "module":
                return self._constant(self.module(other), name, 1)
            return self._class_attribute(self.module(other), self.module(other).classes[kind], name, 1)
        return self._shared(mod, name)

    def _imported(self, mod: Module, local: str) -> tuple[str, str] | None:
        """(path, "module") for an imported project module, (path, class name) for an imported class."""
        if local not in mod.imports:
            return None
        spec, inner = mod.imports[local]
        if inner:
            as_module = self.resolve(mod.path, spec.rstrip(".") + "." + inner if spec.strip(".") else spec + inner)
            if as_module is not None:
                return as_module, "module"
            other = self.resolve(mod.path, spec)
            if other is not None and inner in self.module(other).classes:
                return other, inner
            return None
        found = self.resolve(mod.path, spec)
        return (found, "module") if found is not None else None

    def _class_attribute(self, mod: Module, cls: Node, name: str, depth: int) -> list[Binding]:
        body = cls.child_by_field_name("body")
        cname = text_of(cls.child_by_field_name("name") or cls)
        for stmt in _module_level(body) if body is not None else ():
            left, right = stmt.child_by_field_name("left"), stmt.child_by_field_name("right")
            if stmt.type == "assignment" and left is not None and right is not None and text_of(left) == name:
                return self._binding(mod.path, right, f"{cname}.{name}", ATTRIBUTE) + self._named(mod, right)
        init = self._set_in_init(mod, body, name) if body is not None else []
        if init:
            return init
        supers = cls.child_by_field_name("superclasses")
        for base in supers.named_children if supers is not None and depth < 3 else ():
            if base.type != "identifier":
                continue
            if text_of(base) in mod.classes:
                found = self._class_attribute(mod, mod.classes[text_of(base)], name, depth + 1)
            else:
                target = self._imported(mod, text_of(base))
                found = [] if target is None or target[1] == "module" else self._class_attribute(
                    self.module(target[0]), self.module(target[0]).classes[target[1]], name, depth + 1)
            if found:
                return found
        return []

    def _set_in_init(self, mod: Module, body: Node, name: str) -> list[Binding]:
        """`self.NAME = param` in the class's `__init__`, `param` having a default: that default (and the
        constant it names); `self.NAME = other.NAME2`: what `other.NAME2` is bound to, one step further."""
        key = (mod.path, body.start_byte)
        if key not in self._inits:
            self._inits[key] = _init_values(body)
        found = self._inits[key].get(name)
        if found is None:
            return []
        param, value = found
        if param:
            return self._binding(mod.path, value, f"default of {param} (self.{name})", ATTRIBUTE) + self._named(mod, value)
        if (mod.path, value.start_byte) in self._following or len(self._following) >= COPIES:
            return []  # a cycle of attributes copied from each other, or a chain too long to mean much
        self._following.add((mod.path, value.start_byte))
        try:
            return [Binding(b.path, b.lines, b.what, b.factor * ATTRIBUTE) for b in self._attribute(mod, value)]
        finally:
            self._following.discard((mod.path, value.start_byte))

    def _shared(self, mod: Module, name: str) -> list[Binding]:
        """`obj.NAME` on an object of unknown class: the class attribute, when only one class around has it."""
        places = [mod] + [self.module(p) for p in self._imported_paths(mod)]
        hits = [found for m in places for cls in m.classes.values() if (found := self._class_attribute(m, cls, name, 3))]
        return [Binding(b.path, b.lines, b.what, b.factor / ATTRIBUTE * SHARED) for b in hits[0]] if len(hits) == 1 else []

    def _imported_paths(self, mod: Module) -> list[str]:
        paths = {self.resolve(mod.path, spec) for spec, _ in mod.imports.values()}
        return sorted(p for p in paths if p is not None and p != mod.path)

    def _passed_over(self, mod: Module, call: Node) -> list[Binding]:
        """Defaults of a project function that this call leaves to the function."""
        fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if fn is None or args is None or args.type != "argument_list":
            return []
        target: tuple[Module, Node] | None = None
        if fn.type == "identifier" and text_of(fn) in mod.functions:
            target = mod, mod.functions[text_of(fn)]
        elif fn.type == "identifier" and text_of(fn) in mod.imports:
            spec, inner = mod.imports[text_of(fn)]
            other = self.resolve(mod.path, spec) if inner else None
            if other is not None and inner in self.module(other).functions:
                target = self.module(other), self.module(other).functions[inner]
        if target is None or any(a.type in ("list_splat", "dictionary_splat") for a in args.named_children):
            return []
        positional = sum(1 for a in args.named_children if a.type not in ("keyword_argument", "comment"))
        given = {text_of(a.child_by_field_name("name")) for a in args.named_children  # type: ignore[arg-type]
                 if a.type == "keyword_argument" and a.child_by_field_name("name") is not None}
        out: list[Binding] = []
        for index, (name, value) in enumerate(_parameters(target[1])):
            if value is not None and index >= positional and name not in given:
                out.extend(self._binding(target[0].path, value, f"default of {name}", PASSED_OVER))
        return out

    def _binding(self, path: str, value: Node, what: str, factor: float) -> list[Binding]:
        if not any(n.type in LITERALS for n in walk(value)) and not CONSTANT_NAME.match(text_of(value)):
            return []  # nothing there a literal edit (or another constant of a family) could change
        first = value.start_point[0] + 1
        last = min(value.end_point[0] + 1, first + MAX_LINES - 1)
        return [Binding(path, tuple(range(first, last + 1)), what, factor)]

    def resolve(self, path: str, spec: str) -> str | None:
        """The project file a module name (`.rows`, `ledger.rows`, `config`) seen from `path` is."""
        dots = len(spec) - len(spec.lstrip("."))
        rest = spec.lstrip(".").replace(".", "/")
        if dots:
            base = posixpath.dirname(path)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            stem = posixpath.join(base, rest) if rest else base
            names = [stem + ".py", posixpath.join(stem, "__init__.py")] if rest else [posixpath.join(stem, "__init__.py")]
            return next((n for n in names if n in self.sources and not self.is_test_file(n)), None)
        if not rest:
            return None
        ends = (rest + ".py", rest + "/__init__.py")
        hits = [p for p in self.sources if not self.is_test_file(p)
                and any(p == e or p.endswith("/" + e) for e in ends)]
        return min(hits, key=len) if hits else None


def _parameters(fn: Node) -> list[tuple[str, Node | None]]:
    """(name, default value or None) of each parameter that can be given by position, `self` left out."""
    params = fn.child_by_field_name("parameters")
    out: list[tuple[str, Node | None]] = []
    for p in params.named_children if params is not None else ():
        if p.type in ("list_splat_pattern", "dictionary_splat_pattern", "keyword_separator"):
            continue
        name = parameter_name(p)
        if name is not None:
            out.append((text_of(name), p.child_by_field_name("value")))
    if out and out[0][0] in SELF and enclosing(fn, "class_definition", "function_definition") is not None:
        out = out[1:]
    return out


def _init_values(body: Node) -> dict[str, tuple[str, Node]]:
    """What a class's `__init__` sets: attribute -> (parameter, its default) for `self.attribute = parameter`
    with a default, ("", the attribute read) for `self.attribute = other.name`."""
    init = next((n for n in body.named_children if n.type == "function_definition"
                 and text_of(n.child_by_field_name("name") or n) == "__init__"), None)
    defaults = _defaults(init) if init is not None else {}
    out: dict[str, tuple[str, Node]] = {}
    for node in walk(init) if init is not None else ():
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if node.type != "assignment" or left is None or right is None or left.type != "attribute" \
                or not text_of(left).startswith("self."):
            continue
        if right.type == "identifier" and text_of(right) in defaults:
            out.setdefault(text_of(left)[5:], (text_of(right), defaults[text_of(right)]))
        elif right.type == "attribute":
            out.setdefault(text_of(left)[5:], ("", right))
    return out


def _defaults(fn: Node) -> dict[str, Node]:
    params = fn.child_by_field_name("parameters")
    out: dict[str, Node] = {}
    for p in params.named_children if params is not None else ():
        name, value = p.child_by_field_name("name"), p.child_by_field_name("value")
        if p.type in ("default_parameter", "typed_default_parameter") and name is not None and value is not None:
            out[text_of(name)] = value
    return out


def _is_callee(node: Node) -> bool:
    return node.parent is not None and node.parent.type == "call" and node.parent.child_by_field_name("function") == node


def _is_read(node: Node) -> bool:
    """An identifier read as a value, outside any signature (a default reads names at import, not here)."""
    parent = node.parent
    if parent is None or _is_callee(node) or enclosing(node, "parameters", "lambda_parameters", "type") is not None:
        return False
    if parent.type == "attribute":
        return parent.child_by_field_name("object") == node
    if parent.type == "keyword_argument":
        return parent.child_by_field_name("value") == node
    if parent.type in ("function_definition", "class_definition", "dotted_name", "aliased_import", "global_statement",
                       "nonlocal_statement", "import_from_statement"):
        return False
    # `x += 1` reads x; `x = 1` and `for x in` do not.
    return not (parent.type in ("assignment", "for_statement") and parent.child_by_field_name("left") == node)

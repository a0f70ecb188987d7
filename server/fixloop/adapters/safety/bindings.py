"""The first pass: which local names stand for which modules and functions.

`import subprocess as sp` binds `sp` to "subprocess"; `from os import system as run` binds `run` to
"os.system"; a module-level `def eval(...)` binds `eval` to "" (a local, not the builtin). Imports are
taken wherever they occur (flow- and scope-insensitive): a rule then sees through aliases without a
full name resolver.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from fixloop.adapters.safety.catalog import BUILTIN_CALLS, CALL_KINDS, RAW_WRITES, TAKEOVER_NAMES, is_harness

_WORD = re.compile(rb"\w")
# Modules so rarely used as variable names that an unbound use still means the module.
IMPLICIT_MODULES = frozenset({"os", "subprocess", "pickle", "marshal", "shutil", "tempfile", "builtins", "importlib",
                              "sys", "inspect", "gc", "ctypes", "faulthandler", "threading", "traceback"})


@dataclass(frozen=True)
class Bindings:
    names: dict[str, str] = field(default_factory=dict)  # local name -> qualified name ("" = a local)
    star_modules: tuple[str, ...] = ()

    def qualify(self, name: str) -> str | None:
        """The qualified name a bare identifier stands for, or None when it is not an import."""
        if name in self.names:
            return self.names[name] or None
        if name in BUILTIN_CALLS or name in IMPLICIT_MODULES:
            return name
        for module in self.star_modules:  # `from os import *` then `system(...)`
            qualified = f"{module}.{name}"
            if qualified in CALL_KINDS or is_harness(qualified) or qualified in TAKEOVER_NAMES | RAW_WRITES:
                return qualified
        return None

    def qualify_node(self, node: Node) -> str | None:
        """`sp.run` -> "subprocess.run" after `import subprocess as sp`; None for anything not imported."""
        if node.type == "identifier":
            return self.qualify(_text(node))
        if node.type == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            base = self.qualify_node(obj) if obj is not None else None
            return f"{base}.{_text(attr)}" if base and attr is not None else None
        return None

    def key(self) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        return tuple(sorted(self.names.items())), self.star_modules


def collect(root: Node, src: bytes) -> Bindings:
    names: dict[str, str] = {}
    stars: list[str] = []
    seen: set[int] = set()
    for at in _keyword_offsets(src, b"import"):
        node = root.descendant_for_byte_range(at, at + 6)
        stmt = node.parent if node is not None else None
        if stmt is None or stmt.type not in ("import_statement", "import_from_statement"):
            continue  # the word inside a string, a comment, or an identifier like `important`
        if stmt.start_byte in seen:
            continue
        seen.add(stmt.start_byte)
        if stmt.type == "import_statement":
            _plain_import(stmt, names)
        else:
            _from_import(stmt, names, stars)
    imports = Bindings(dict(names), tuple(stars))
    modules = {target.split(".", 1)[0] for target in names.values()} | IMPLICIT_MODULES
    for name, value in _module_level_names(root):
        target = imports.qualify_node(value) if value is not None else None
        if target and (target in CALL_KINDS or is_harness(target) or target.split(".", 1)[0] in modules):
            names[name] = target  # `run = subprocess.run`, `sp = subprocess`: an alias by assignment
        elif name in BUILTIN_CALLS:
            names[name] = ""  # `def eval(...)` or `eval = safe_eval` at module level: not the builtin
    return Bindings(names, tuple(stars))


def _keyword_offsets(src: bytes, word: bytes) -> list[int]:
    """Offsets of `word` standing alone (bytes.find runs in C: ~20x faster than a regex with \\b)."""
    out: list[int] = []
    at = src.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not _WORD.match(src, at - 1)) and (end == len(src) or not _WORD.match(src, end)):
            out.append(at)
        at = src.find(word, end)
    return out


def _module_level_names(root: Node) -> list[tuple[str, Node | None]]:
    """Names a module binds at top level by def, class or plain assignment, with the assigned value."""
    out: list[tuple[str, Node | None]] = []
    for child in root.children:
        node = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if node is None:
            continue
        if node.type in ("function_definition", "class_definition"):
            out.append((_text(node.child_by_field_name("name")), None))
        elif node.type == "expression_statement" and node.named_child_count == 1:
            target = node.named_children[0]
            left = target.child_by_field_name("left") if target.type == "assignment" else None
            if left is not None and left.type == "identifier":
                out.append((_text(left), target.child_by_field_name("right")))
    return out


def _plain_import(stmt: Node, names: dict[str, str]) -> None:
    for child in stmt.children_by_field_name("name"):
        if child.type == "aliased_import":
            target, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
            if target is not None and alias is not None:
                names[_text(alias)] = _text(target)
        elif child.type == "dotted_name":
            first = _text(child).split(".", 1)[0]
            names[first] = first


def _from_import(stmt: Node, names: dict[str, str], stars: list[str]) -> None:
    module = stmt.child_by_field_name("module_name")
    if module is None or module.type != "dotted_name":
        return  # relative imports name project modules, never the ones the rules are about
    base = _text(module)
    for child in stmt.children:
        if child.type == "wildcard_import":
            stars.append(base)
    for child in stmt.children_by_field_name("name"):
        if child.type == "aliased_import":
            target, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
            if target is not None and alias is not None:
                names[_text(alias)] = f"{base}.{_text(target)}"
        elif child.type == "dotted_name":
            names[_text(child)] = f"{base}.{_text(child)}"


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""

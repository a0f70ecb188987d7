"""Where an undefined name can be imported from: the project's own modules that define it at their top level,
then the standard library's modules that have it (`defaultdict` from collections, `Path` from pathlib); and
where the import goes, in the order isort (and ruff's `I` rules) keep: `__future__`, the standard library,
third-party packages, the project's own, a blank line between groups, sorted within one. What the
missing-import template proposes, nearest first."""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass
from typing import Mapping

from tree_sitter import Node

from fixloop.core.integrity import is_test_file
from fixloop.kit.syntax import Offsets, text_of

# The standard library's modules whose members code usually imports by name. Imported into fixloop's own process
# to look a name up (the standard library only: never the project's code).
MEMBER_MODULES = ("typing", "collections", "collections.abc", "dataclasses", "pathlib", "functools", "itertools",
                  "datetime", "enum", "decimal", "fractions", "contextlib", "abc", "math", "os", "os.path", "re",
                  "json", "copy", "operator", "textwrap", "string", "time", "random", "statistics", "heapq",
                  "bisect", "shutil", "tempfile", "io", "uuid", "logging", "warnings", "inspect", "types")
MAX_EACH = 2
SECTIONS = ("future", "stdlib", "third", "first")
STDLIB = frozenset(sys.stdlib_module_names)


def importable_from(name: str, path: str, sources: Mapping[str, str]) -> list[str]:
    """`from <module> import <name>` lines for `name`, used in `path` and not defined there: the project's
    modules first (not tests), then the standard library's."""
    if not name.isidentifier() or name.startswith("_"):
        return []
    defined = re.compile(rf"^(?:async\s+def|def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*(?::[^=\n]*)?=(?!=)",
                         re.MULTILINE)
    ours = []
    for other, text in sources.items():
        if other == path or not other.endswith(".py") or is_test_file(other) or not defined.search(text):
            continue
        module = module_of(other, sources)
        if module:
            ours.append(f"from {module} import {name}\n")
    return sorted(ours, key=lambda line: (_distance(path, line), line))[:MAX_EACH] + _stdlib(name)


def module_of(path: str, sources: Mapping[str, str]) -> str:
    """The dotted name `path` is imported by: up through the folders that are packages (`src/shop/cart.py` with
    `src/shop/__init__.py` and no `src/__init__.py` is `shop.cart`)."""
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    start = len(parts) - 1
    while start > 0 and "/".join(parts[:start]) + "/__init__.py" in sources:
        start -= 1
    return ".".join(parts[start:]) if all(p.isidentifier() for p in parts[start:]) else ""


def _stdlib(name: str) -> list[str]:
    found = []
    for module in MEMBER_MODULES:
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            continue
        exported = loaded.__dict__.get("__all__")  # what it offers, not what it imported for itself
        has = name in exported if isinstance(exported, (list, tuple)) else name in loaded.__dict__
        if has:
            found.append(f"from {module} import {name}\n")
            if len(found) == MAX_EACH:
                break
    return found


def _distance(path: str, line: str) -> int:
    """Folders apart: a definition beside the file before one elsewhere."""
    here = path.split("/")[:-1]
    there = line.split()[1].split(".")[:-1]
    common = 0
    for a, b in zip(here, there):
        if a != b:
            break
        common += 1
    return len(here) + len(there) - 2 * common


@dataclass(frozen=True)
class Entry:
    """A top-level import of the module's leading block: where its lines are, and how isort orders it."""

    start: int  # the offset of its first line
    end: int  # the offset after its last line's newline
    section: str
    key: tuple[bool, str]  # `from` imports after plain ones, then by module name


def placement(root: Node, off: Offsets, statement: str, sources: Mapping[str, str]) -> tuple[int, str]:
    """Where `statement` (`import x` or `from x import y`, with its newline) goes in the module `root`, and the
    text to insert there (with the blank lines its group needs)."""
    first_party = {module_of(p, sources).split(".")[0] for p in sources if p.endswith(".py")} - {""}
    module = statement.split()[1]
    mine = Entry(0, 0, _section(module, first_party), (statement.startswith("from "), module.lower()))
    entries = _leading_imports(root, off, first_party)
    same = [e for e in entries if e.section == mine.section]
    if same:
        after = next((e for e in same if e.key > mine.key), None)
        return (after.start, statement) if after is not None else (same[-1].end, statement)
    rank = SECTIONS.index(mine.section)
    earlier = [e for e in entries if SECTIONS.index(e.section) < rank]
    if earlier:
        return earlier[-1].end, "\n" + statement
    if entries:
        return entries[0].start, statement + "\n"
    at = _after_docstring(root, off)
    rest = off.text[at:].lstrip("\n")
    wanted = 2 if rest.startswith(("def ", "class ", "async def ", "@")) else 1  # blank lines before the code
    have = len(off.text) - at - len(rest)
    return at, statement + ("\n" * max(0, wanted - have) if rest else "")


def _section(module: str, first_party: set[str]) -> str:
    top = module.split(".")[0]
    if module == "__future__":
        return "future"
    if module.startswith(".") or top in first_party:
        return "first"
    return "stdlib" if top in STDLIB else "third"


def _leading_imports(root: Node, off: Offsets, first_party: set[str]) -> list[Entry]:
    found: list[Entry] = []
    for child in root.named_children:
        if child.type == "comment" or (not found and _docstring(child)):
            continue
        if child.type not in ("import_statement", "import_from_statement", "future_import_statement"):
            break
        named = child.child_by_field_name("module_name") or (child.named_children[0] if child.named_children else None)
        module = "__future__" if child.type == "future_import_statement" else text_of(named) if named else ""
        if named is not None and named.type == "aliased_import":
            inner = named.child_by_field_name("name")
            module = text_of(inner) if inner is not None else module
        start = off.text.rfind("\n", 0, off.char(child.start_byte)) + 1
        end = off.text.find("\n", off.char(child.end_byte))
        found.append(Entry(start, len(off.text) if end < 0 else end + 1, _section(module, first_party),
                           (child.type == "import_from_statement", module.lower())))
    return found


def _after_docstring(root: Node, off: Offsets) -> int:
    first = root.named_children[0] if root.named_child_count else None
    if first is None or not _docstring(first):
        return 0
    end = off.text.find("\n", off.char(first.end_byte))
    return len(off.text) if end < 0 else end + 1


def _docstring(statement: Node) -> bool:
    return statement.type == "expression_statement" and statement.named_child_count == 1 and \
        statement.named_children[0].type == "string"

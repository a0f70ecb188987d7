"""What of a patched file bandit must read again: the top-level definitions the patch touched.

bandit walks the whole module for every candidate, a quarter of a second on a 5,000-line file, while a
candidate changes one function. A top-level `def` or `class` that lies wholly in the lines the patch kept
(the common first and last lines of the two texts) gives the same findings before and after, so it cannot
add one: both texts get it blanked, line for line, so every other line keeps its number and its findings
their fingerprints. What bandit needs to judge the rest stays: every module-level statement, and each
import inside a blanked definition, moved to column 0 on its own line (bandit resolves a call's module
through the imports it has seen anywhere in the file). A patch whose lines mention an import changes what
calls everywhere resolve to, so both texts are then scanned whole; so is a text that does not parse, and a
definition whose imports do not stand on lines of their own stays whole. The unpatched text is read once
per run (cached), the patched one not at all: the patch's lines are found by comparing lines.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from fixloop.core.patch import common_ends

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Block:
    """A top-level definition: its lines (0-based, end exclusive, decorators included) and its imports."""

    start: int
    end: int
    imports: tuple[tuple[int, str], ...]  # (line, the import statement alone)


def scoped(before: str, after: str) -> tuple[str, str]:
    """`before` and `after` with each top-level definition the patch left alone blanked in both."""
    blocks = layout(before)
    if not blocks:
        return before, after
    old, new = before.split("\n"), after.split("\n")
    prefix, suffix = common_ends(old, new)
    if any("import" in line for line in old[prefix:len(old) - suffix] + new[prefix:len(new) - suffix]):
        return before, after  # an import changes what calls everywhere resolve to: all of it is read again
    shift = len(new) - len(old)
    for block in blocks:
        moved = 0 if block.end <= prefix else shift if block.start >= len(old) - suffix else None
        if moved is not None:
            _blank(old, block, 0)
            _blank(new, block, moved)
    return "\n".join(old), "\n".join(new)


def _blank(lines: list[str], block: Block, shift: int) -> None:
    for number in range(block.start + shift, block.end + shift):
        lines[number] = ""
    for number, statement in block.imports:
        lines[number + shift] = statement


@lru_cache(maxsize=8)  # every candidate of a run patches the same unpatched text
def layout(text: str) -> tuple[Block, ...]:
    """The top-level definitions of `text` that can be blanked; none when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    lines = text.split("\n")
    out = []
    for node in tree.body:
        if not isinstance(node, DEFINITIONS) or node.end_lineno is None:
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        imports = [(n.lineno - 1, ast.get_source_segment(text, n) or "") for n in ast.walk(node)
                   if isinstance(n, (ast.Import, ast.ImportFrom))]
        if all(s and "\n" not in s and lines[i].strip() == s.strip() for i, s in imports):
            out.append(Block(start, node.end_lineno, tuple((i, s.strip()) for i, s in imports)))
    return tuple(out)

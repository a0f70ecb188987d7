"""What of a patched file bandit must read again: the top-level definitions the patch touched.

bandit walks the whole module for every candidate, a quarter of a second on a 5,000-line file, while a
candidate changes one function. A top-level `def` or `class` whose text is the same before and after the
patch gives the same findings in both, so it cannot add one: both texts get it blanked, line for line,
so every other line keeps its number and its findings their fingerprints. What bandit needs to judge the
rest stays: every module-level statement, and each import inside a blanked definition, moved to column 0
on its own line (bandit resolves a call's module through the imports it has seen anywhere in the file).
When anything of this cannot be done exactly (a text that does not parse, two statements on one line),
the whole texts are scanned as before.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import lru_cache

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def scoped(before: str, after: str) -> tuple[str, str]:
    """`before` and `after` with each top-level definition that both hold unchanged blanked."""
    trees = _parse(before), _parse(after)
    if trees[0] is None or trees[1] is None:
        return before, after
    blocks = _blocks(before, trees[0]), _blocks(after, trees[1])
    shared = Counter(text for text, _ in blocks[0]) & Counter(text for text, _ in blocks[1])
    out = []
    for text, found in zip((before, after), blocks):
        left = Counter(shared)
        blank = []
        for block, node in found:
            if left[block] > 0:
                left[block] -= 1
                blank.append(node)
        reduced = _blanked(text, blank)
        if reduced is None:
            return before, after
        out.append(reduced)
    return out[0], out[1]


@lru_cache(maxsize=16)  # the unpatched text is parsed again for every candidate of a run
def _parse(text: str) -> ast.Module | None:
    """The module's tree (shared through the cache: never changed), or None."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _start(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _blocks(text: str, tree: ast.Module) -> list[tuple[str, ast.stmt]]:
    """Each top-level definition with its text, decorators included."""
    lines = text.split("\n")
    return [("\n".join(lines[_start(n) - 1:n.end_lineno]), n) for n in tree.body
            if isinstance(n, DEFINITIONS) and n.end_lineno is not None]


def _blanked(text: str, nodes: list[ast.stmt]) -> str | None:
    """`text` with the lines of `nodes` emptied but for their imports, at column 0; None when an import
    shares a line with another statement or spans lines."""
    lines = text.split("\n")
    for node in nodes:
        start, end = _start(node), node.end_lineno or node.lineno
        imports = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
        kept: dict[int, str] = {}
        for imp in imports:
            segment = ast.get_source_segment(text, imp)
            if segment is None or "\n" in segment or imp.lineno in kept:
                return None
            if lines[imp.lineno - 1].strip() != segment.strip():
                return None  # `import a; b()` or `if x: import a`: not a line of its own
            kept[imp.lineno] = segment.strip()
        for number in range(start, end + 1):
            lines[number - 1] = kept.get(number, "")
    reduced = "\n".join(lines)
    return reduced if _parse(reduced) is not None else None

"""Which tests ran the code a patch changes: the baseline's per-test lines (its spectrum) against the
functions the patch touches (pure; the standard library's `ast` only).

A change is placed in the innermost function around it, its decorators and `def` line included: a default
value or a signature runs at import, before any test starts, so no test's lines show it, while every test
that calls the function runs its body. A change outside every function (a module constant, a class
attribute, an import) may matter to any test that imports the module, so it narrows nothing.
"""

from __future__ import annotations

import ast
import difflib
from functools import lru_cache
from typing import Mapping, Sequence

from fixloop.core.model import Patch

Spectra = Mapping[str, Mapping[str, frozenset[int]]]
Span = tuple[int, int]  # first and last line, 1-based, inclusive


def changed_lines(before: str, after: str) -> set[int]:
    """Lines of `before` that the change replaces or deletes; an insertion counts as the line before it."""
    old, new = before.splitlines(), after.splitlines()
    lines: set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lines.update(range(i1 + 1, i2 + 1) if i2 > i1 else (max(1, i1),))
    return lines


@lru_cache(maxsize=64)
def function_spans(source: str) -> tuple[Span, ...] | None:
    """Every function's lines, decorators included; None when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    spans: list[Span] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((first, node.end_lineno or node.lineno))
    return tuple(spans)


def touched_functions(before: str, after: str) -> tuple[Span, ...] | None:
    """The innermost function around each changed line; None when a change lies outside every function."""
    spans = function_spans(before)
    if spans is None:
        return None
    touched: set[Span] = set()
    for line in changed_lines(before, after):
        around = [s for s in spans if s[0] <= line <= s[1]]
        if not around:
            return None
        touched.add(max(around, key=lambda s: s[0]))  # nested spans: the innermost starts last
    return tuple(sorted(touched))


def covering(spectra: Spectra, patch: Patch) -> frozenset[str] | None:
    """The tests whose recorded lines enter a function the patch changes; None when the patch cannot be
    narrowed that way (a new file, a change outside functions, a file that does not parse)."""
    tests: set[str] = set()
    for change in patch.changes:
        if not change.before:
            return None
        spans = touched_functions(change.before, change.after)
        if spans is None:
            return None
        wanted = [line for first, last in spans for line in range(first, last + 1)]
        for test, files in spectra.items():
            lines = files.get(change.path)
            if lines and any(line in lines for line in wanted):
                tests.add(test)
    return frozenset(tests)


def apart(spectra: Spectra, patch: Patch, tests: Sequence[str]) -> frozenset[str]:
    """Those of `tests` whose lines were recorded and enter no function the patch changes; none when the
    patch cannot be placed in functions (then any test may meet the change)."""
    running = covering(spectra, patch)
    if running is None:
        return frozenset()
    return frozenset(t for t in tests if t in spectra and t not in running)

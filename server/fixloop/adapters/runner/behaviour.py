"""Which functions a fix changes, and what they returned in a run (pure; the standard library's `ast` only).

The offline reviewer compares, for each plausible fix, what the functions it changes return in the passing
tests that run them, with the fix and without: the report plugin records each call's value
(runner/fixloop_values.py) and this module names the functions and reads the records back.
"""

from __future__ import annotations

import ast
import json
from typing import Sequence

from fixloop.core.model import Patch
from fixloop.core.ports import Calls
from fixloop.adapters.runner.covering import touched_functions


def probed(patch: Patch) -> dict[str, list[str]] | None:
    """Each changed file's functions that the patch changes (the innermost around each changed line), by
    name; None when a change lies outside every function (its effect is on no one call)."""
    out: dict[str, list[str]] = {}
    for change in patch.changes:
        spans = touched_functions(change.before, change.after) if change.before else None
        if not spans:
            return None
        names = _names(change.before, set(spans))
        if not names:
            return None
        out[change.path] = names
    return out or None


def _names(source: str, spans: set[tuple[int, int]]) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if (first, node.end_lineno or node.lineno) in spans and node.name not in names:
                names.append(node.name)
    return names


def parse_values(lines: Sequence[str]) -> Calls:
    """(test, function, its n-th call in the test) -> the value's digest, from the plugin's `values` records."""
    out: dict[tuple[str, str, int], str] = {}
    for line in lines:
        if '"values"' not in line:
            continue
        try:
            record = json.loads(line)
            if record.get("event") != "values":
                continue
            seen: dict[str, int] = {}
            for name, digest in record["calls"]:
                n = seen[str(name)] = seen.get(str(name), -1) + 1
                out[(str(record["nodeid"]), str(name), n)] = str(digest)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            continue
    return out

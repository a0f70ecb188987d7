"""Edits written as plain text, for models that answer without tool_use (small local models).

Three shapes are understood: a fenced JSON object or list with path/old/new, aider-style
SEARCH/REPLACE blocks preceded by the file path, and a unified diff (each hunk becomes an
old/new snippet pair). The result goes through the same validation as the edit tool.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
_SEARCH_REPLACE = re.compile(
    r"(?:^|\n)[ \t`]*([^\n`]+?\.py)[ \t`]*\n(?:```[A-Za-z]*\n)?<{5,9} SEARCH\n(.*?)\n?={5,9}\n(.*?)\n?>{5,9} REPLACE", re.S)


@dataclass(frozen=True)
class SnippetEdit:
    """Replace the snippet `old` with `new` in the file `path` (`core.patch.TextEdit` is by offsets)."""

    path: str
    old: str
    new: str


def parse_edits(text: str) -> list[SnippetEdit]:
    """Every edit found in `text`, in order; the first shape that yields edits wins."""
    for finder in (_json_edits, _search_replace_edits, _diff_edits):
        edits = finder(text)
        if edits:
            return edits
    return []


def _json_edits(text: str) -> list[SnippetEdit]:
    out: list[SnippetEdit] = []
    for lang, body in _FENCE.findall(text):
        if lang not in ("json", ""):
            continue
        try:
            data = json.loads(body)
        except ValueError:
            continue
        items = data if isinstance(data, list) else [data]
        for item in items:
            if not isinstance(item, dict):
                continue
            path = item.get("path")
            old = item.get("old", item.get("old_str"))
            new = item.get("new", item.get("new_str"))
            if isinstance(path, str) and isinstance(old, str) and isinstance(new, str):
                out.append(SnippetEdit(path, old, new))
    return out


def _search_replace_edits(text: str) -> list[SnippetEdit]:
    return [SnippetEdit(path.strip(), old + "\n" if old else old, new + "\n" if new else new)
            for path, old, new in _SEARCH_REPLACE.findall(text)]


def _diff_edits(text: str) -> list[SnippetEdit]:
    bodies = [body for lang, body in _FENCE.findall(text) if lang in ("diff", "patch", "")]
    if not bodies and "\n@@" in text:
        bodies = [text]
    out: list[SnippetEdit] = []
    for body in bodies:
        path = ""
        old: list[str] = []
        new: list[str] = []
        in_hunk = False

        def flush() -> None:
            if path and in_hunk and old != new:
                out.append(SnippetEdit(path, "".join(old), "".join(new)))

        for line in body.splitlines(keepends=True):
            if line.startswith("+++ "):
                flush()
                in_hunk, old, new = False, [], []
                target = line[4:].strip().split("\t")[0]
                path = target[2:] if target.startswith(("b/", "a/")) else target
            elif line.startswith("--- "):
                continue
            elif line.startswith("@@"):
                flush()
                in_hunk, old, new = True, [], []
            elif in_hunk and line.startswith("\\"):
                continue
            elif in_hunk and line[:1] in (" ", "-", "+"):
                rest = line[1:]
                if line[0] != "+":
                    old.append(rest)
                if line[0] != "-":
                    new.append(rest)
            elif in_hunk and line.strip() == "":
                old.append("\n")
                new.append("\n")
        flush()
    return out

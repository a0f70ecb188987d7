"""Patches as pure functions on strings: build, render, split into hunks, apply."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from fixloop.core.model import FileChange, Patch

# A hunk's header as `unified_diff` writes it: old start, old length, new start, new length (lengths optional).
HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


@dataclass(frozen=True)
class TextEdit:
    """Replace text[start:end] (character offsets) with `text`."""

    start: int
    end: int
    text: str


def apply_edits(source: str, edits: Iterable[TextEdit]) -> str:
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for a, b in zip(ordered, ordered[1:]):
        if b.start < a.end:
            raise ValueError("overlapping edits")
    out: list[str] = []
    pos = 0
    for e in ordered:
        if not (0 <= e.start <= e.end <= len(source)):
            raise ValueError(f"edit {e.start}:{e.end} outside a text of {len(source)} characters")
        out.append(source[pos : e.start])
        out.append(e.text)
        pos = e.end
    out.append(source[pos:])
    return "".join(out)


def replace_snippet(source: str, old: str, new: str) -> str:
    """Replace the one occurrence of `old`; anything else is an error a caller can report."""
    if not old:
        raise ValueError("the snippet to replace is empty")
    count = source.count(old)
    if count == 0:
        raise ValueError("the snippet was not found")
    if count > 1:
        raise ValueError(f"the snippet occurs {count} times; include more context to make it unique")
    return source.replace(old, new, 1)


def unified_diff(patch: Patch, context: int = 3) -> str:
    """The patch as `diff -u` and git write it: lines end at "\n" only, so a form feed, a NEL, a line separator
    or a carriage return (CRLF) stays inside its line, as in the file and for a tool that applies the diff.
    A change that creates its file (`meta["new_files"]`) comes from /dev/null, as git writes it."""
    parts: list[str] = []
    new_files = patch.meta.get("new_files", ())
    for c in patch.changes:
        parts.extend(
            difflib.unified_diff(
                _lines(c.before),
                _lines(c.after),
                fromfile="/dev/null" if c.path in new_files else f"a/{c.path}",
                tofile=f"b/{c.path}",
                n=context,
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in parts)


def common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """How many first and how many last items `a` and `b` share (never overlapping): what lies between
    is what changed."""
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, s


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


@dataclass(frozen=True)
class Hunk:
    """One reviewable change: lines [start, end) of `before` become `new_lines`."""

    path: str
    index: int
    start: int
    end: int
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.path}#{self.index}"


def hunks(change: FileChange) -> tuple[Hunk, ...]:
    a = change.before.splitlines(keepends=True)
    b = change.after.splitlines(keepends=True)
    # Only what lies between the shared first and last lines is matched: without junk heuristics the
    # matcher costs 0.2 s on a 5,000-line module, and the loop asks for the size of every candidate.
    p, s = common_ends(a, b)
    out: list[Hunk] = []
    matcher = difflib.SequenceMatcher(a=a[p:len(a) - s], b=b[p:len(b) - s], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.append(Hunk(change.path, len(out), p + i1, p + i2, tuple(a[p + i1:p + i2]), tuple(b[p + j1:p + j2])))
    return tuple(out)


def touched(patch: Patch) -> set[tuple[str, int]]:
    """The original lines a patch changes, as (path, 0-based line); an insertion counts the line it goes before."""
    return {(h.path, n) for c in patch.changes for h in hunks(c) for n in range(h.start, max(h.end, h.start + 1))}


def apply_hunks(before: str, chosen: Sequence[Hunk]) -> str:
    """Apply only the chosen hunks of one file (all computed against `before`)."""
    lines = before.splitlines(keepends=True)
    for h in sorted(chosen, key=lambda h: h.start, reverse=True):
        if tuple(lines[h.start : h.end]) != h.old_lines:
            raise ValueError(f"hunk {h.id} does not match the text it was made for")
        lines[h.start : h.end] = list(h.new_lines)
    return "".join(lines)


def patch_size(patch: Patch) -> int:
    """Changed lines, used to prefer the smallest among equally good fixes (blank lines, which change nothing a
    program does, are not counted: an import with the blank lines its group needs is one line)."""
    return sum(1 for c in patch.changes for h in hunks(c) for line in (*h.old_lines, *h.new_lines) if line.strip())


def changed_at(patch: Patch) -> str:
    """Where a patch changes its first file, as `path:line` (1-based): the line its proposer names (`meta`),
    else the first line that differs. What the user sees as the suspect being tried."""
    if not patch.changes:
        return ""
    change = patch.changes[0]
    line = patch.meta.get("line")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        a, b = change.before.splitlines(), change.after.splitlines()
        line = next((i for i, (x, y) in enumerate(zip(a, b), 1) if x != y), min(len(a), len(b)) + 1)
    return f"{change.path}:{line}"

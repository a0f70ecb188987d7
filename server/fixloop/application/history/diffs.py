"""A past run's `fix.diff` back onto today's files: the unified diff parsed (untrusted text, bounded) and
applied where each hunk's old lines still stand, so the editors can reopen an old run's review."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from fixloop.core.patch import HUNK_HEADER

MAX_FILES = 50


@dataclass
class FileDiff:
    path: str
    hunks: list[tuple[int, list[str], list[str]]] = field(default_factory=list)  # (old start 0-based, old, new)


def plain_relative(path: str) -> bool:
    p = PurePosixPath(path)
    return bool(path) and not p.is_absolute() and all(part not in ("", ".", "..") for part in p.parts) \
        and "\0" not in path and "\\" not in path


def parse(text: str) -> list[FileDiff]:
    """The files and hunks of a unified diff as `core.patch.unified_diff` writes it; anything else is ignored."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    hunk: tuple[int, list[str], list[str]] | None = None
    for line in text.splitlines(keepends=True):
        if line.startswith("+++ "):
            name = line[4:].rstrip("\r\n")
            name = name[2:] if name.startswith("b/") else name
            current = FileDiff(name) if plain_relative(name) and len(files) < MAX_FILES else None
            if current is not None:
                files.append(current)
            hunk = None
        elif line.startswith("--- "):
            hunk = None
        elif current is not None and (m := HUNK_HEADER.match(line)):
            hunk = (max(0, int(m.group(1)) - 1), [], [])
            current.hunks.append(hunk)
        elif hunk is not None and line[:1] in (" ", "-", "+"):
            body = line[1:]
            if line[0] in (" ", "-"):
                hunk[1].append(body)
            if line[0] in (" ", "+"):
                hunk[2].append(body)
    return files


def apply(before: str, diff: FileDiff) -> str | None:
    """`before` with the diff's hunks applied, each where its old lines stand (near the recorded line
    first); None when any hunk's old lines are not there (the file changed, or the fix is already in)."""
    lines = before.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    for start, old, new in diff.hunks:
        at = _find(lines, old, start, pos)
        if at is None:
            return None
        out.extend(lines[pos:at])
        out.extend(new)
        pos = at + len(old)
    out.extend(lines[pos:])
    return "".join(out)


def _find(lines: list[str], old: list[str], hint: int, lowest: int) -> int | None:
    def fits(i: int) -> bool:
        return i >= lowest and lines[i:i + len(old)] == old

    if fits(hint):
        return hint
    for i in range(lowest, len(lines) - len(old) + 1):
        if fits(i):
            return i
    return None

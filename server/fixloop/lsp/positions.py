"""Text positions the way LSP counts them: lines split at \n, \r\n and \r, characters in the client's
units (UTF-16 code units unless the client chose UTF-8 or UTF-32)."""

from __future__ import annotations

from enum import Enum
from typing import Any, Callable

Units = Callable[[str], int]  # the length of a string in the client's position units


def units_for(encoding: object) -> Units:
    """The length function for a negotiated `positionEncoding` (an enum member or its string)."""
    name = str(encoding.value if isinstance(encoding, Enum) else encoding or "utf-16")
    if name == "utf-8":
        return lambda s: len(s.encode("utf-8", "surrogatepass"))
    if name == "utf-32":
        return len
    return lambda s: len(s.encode("utf-16-le", "surrogatepass")) // 2


def position_at(text: str, offset: int, units: Units) -> tuple[int, int]:
    """(line, character) of a character offset, lines split the way LSP splits them (\n, \r\n, \r)."""
    head = text[:offset]
    crlf = head.count("\r\n")
    line = head.count("\n") + head.count("\r") - crlf
    start = max(head.rfind("\n"), head.rfind("\r")) + 1
    return line, units(head[start:])


def line_offsets(text: str) -> list[int]:
    """Character offset of each `splitlines` line start, plus the end of the text."""
    out = [0]
    for line in text.splitlines(keepends=True):
        out.append(out[-1] + len(line))
    return out


def line_text(lines: list[str], number: int) -> str:
    """Line `number` (1-based) of `lines`, or "" past either end."""
    return lines[number - 1] if 0 < number <= len(lines) else ""


def line_range(lines: list[str], line: int, end_line: int | None, units: Units,
               column: int = 0, end_column: int = 0) -> dict[str, Any]:
    """1-based lines [line, end_line] from `column` (default: after the indentation) to `end_column`
    (default: the end of the line), as an LSP range in the client's position units."""
    first = max(0, min(line - 1, len(lines) - 1)) if lines else 0
    last = max(first, min((end_line or line) - 1, len(lines) - 1)) if lines else 0
    head = lines[first] if lines else ""
    start = column if column else len(head) - len(head.lstrip())
    tail = lines[last] if lines else ""
    end = end_column if end_column and (last > first or end_column > start) else len(tail)
    return {"start": {"line": first, "character": units(head[:start])},
            "end": {"line": last, "character": units(tail[:end])}}

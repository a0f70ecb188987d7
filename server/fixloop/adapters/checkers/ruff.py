"""ruff as a checker: its command line and its JSON output read as findings.

ruff runs as `python -m ruff` under the project's own interpreter, inside the sandbox, with the project's
own configuration; fixloop never installs it. `--exit-zero`: findings are not a failure of the run, so a
non-zero status means ruff itself could not check (a bad configuration, ruff missing).
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from fixloop.adapters.checkers.findings import Edit, Finding, Fix

TOOL = "ruff"
WHOLE = False  # a finding is of its own file: a candidate is checked in the files it changes
TRIES: tuple[tuple[str, ...], ...] = ((".",),)  # the whole project, as its configuration includes and excludes


def argv(python: str, paths: Sequence[str]) -> list[str]:
    """Check `paths` (relative to the run's copy; "." for the whole project) and print JSON."""
    return [python, "-m", "ruff", "check", "--output-format", "json", "--no-cache", "--exit-zero", "--no-fix",
            "--force-exclude", "--", *paths]


def no_target(stderr: str) -> bool:
    return False  # "." is always something to check


def problem(returncode: int | None, stderr: str, python: str, stdout: str = "") -> str:
    """What stopped ruff from checking, for people; "" when it checked."""
    if returncode == 0:
        return ""
    if "No module named ruff" in stderr:
        return (f"ruff is not installed in the project's environment ({python}): install it there "
                "(pip install ruff) to check with it; fixloop never installs it itself")
    last = [line for line in stderr.strip().splitlines() if line.strip()][-3:]
    return f"ruff could not check the project (exit status {returncode}): " + (" / ".join(last) or "no message")


def parse(output: str, paths: Sequence[str]) -> list[Finding] | str:
    """The findings in ruff's JSON `output` in files among `paths` (the project's files, relative), or why the
    output cannot be read. ruff names files by absolute path in the run's copy, which may be anywhere: a
    file is the project's path that ends it."""
    try:
        data = json.loads(output or "[]")
    except ValueError:
        return "ruff's output is not the JSON fixloop expects (is it an old ruff? 0.1 or later reads --output-format json)"
    if not isinstance(data, list):
        return "ruff's output is not a list of findings"
    known = frozenset(paths)
    found = []
    for item in data:
        finding = _finding(item, known)
        if finding is not None:
            found.append(finding)
    return found


def _relative(filename: str, known: frozenset[str]) -> str | None:
    parts = filename.replace("\\", "/").split("/")
    for i in range(len(parts)):  # the longest tail first: "pkg/a/mod.py" before "a/mod.py"
        tail = "/".join(parts[i:])
        if tail in known:
            return tail
    return None


def _finding(item: Any, known: frozenset[str]) -> Finding | None:
    if not isinstance(item, dict) or item.get("cell") is not None:  # a notebook's cell: not a source file
        return None
    code, message, filename = item.get("code"), item.get("message"), item.get("filename")
    location = item.get("location")
    if not isinstance(code, str) or not code or not isinstance(message, str) or not isinstance(filename, str):
        return None  # syntax errors have no code: the tests say more about those
    path = _relative(filename, known)
    row, column = _position(location)
    if path is None or row is None:
        return None
    end_row, _ = _position(item.get("end_location"))
    return Finding(TOOL, code, message, path, row, column or 1, _fix(item.get("fix")), end_row or row)


def _position(location: Any) -> tuple[int | None, int | None]:
    if not isinstance(location, dict):
        return None, None
    row, column = location.get("row"), location.get("column")
    ok = isinstance(row, int) and isinstance(column, int) and row >= 1 and column >= 1
    return (row, column) if ok else (None, None)


def _fix(raw: Any) -> Fix | None:
    if not isinstance(raw, dict) or raw.get("applicability") not in ("safe", "unsafe"):
        return None  # "display-only" fixes are hints, not edits
    edits = []
    for e in raw.get("edits") or ():
        if not isinstance(e, dict) or not isinstance(e.get("content"), str):
            return None
        (row, column), (end_row, end_column) = _position(e.get("location")), _position(e.get("end_location"))
        if row is None or column is None or end_row is None or end_column is None:
            return None
        edits.append(Edit(row, column, end_row, end_column, e["content"]))
    message = raw.get("message") if isinstance(raw.get("message"), str) else ""
    return Fix(message or "ruff's fix", tuple(edits), raw.get("applicability") == "safe") if edits else None

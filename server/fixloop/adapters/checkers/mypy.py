"""mypy as a checker: its command line and its JSON lines read as findings.

mypy runs as `python -m mypy` under the project's own interpreter, inside the sandbox, with the project's own
configuration (its `files`, else the whole project); fixloop never installs it. A change in one file can make
a type error appear in another, so every check is of the whole project (`WHOLE`), without mypy's cache (each
run's copy is fresh): seconds on a small project, more on a large one.
"""

from __future__ import annotations

import json
from typing import Sequence

from fixloop.adapters.checkers.findings import Finding

TOOL = "mypy"
WHOLE = True  # a candidate is checked with the whole project, not only the files it changes
TRIES: tuple[tuple[str, ...], ...] = ((), (".",))  # the project's own `files` first, else everything


def argv(python: str, paths: Sequence[str]) -> list[str]:
    return [python, "-m", "mypy", "--output", "json", "--cache-dir", "/dev/null", "--no-error-summary",
            "--hide-error-context", "--no-color-output", *paths]


def no_target(stderr: str) -> bool:
    """mypy was given nothing to check (the project names no `files`): try the next of `TRIES`."""
    return "Missing target module, package, files, or command" in stderr


def problem(returncode: int | None, stderr: str, python: str, stdout: str = "") -> str:
    """What stopped mypy from checking, for people; "" when it checked (1: it found errors; 2 with findings on
    stdout: a syntax error it reports as one)."""
    if "No module named mypy" in stderr:  # `python -m` says so with status 1, mypy's own for errors found
        return (f"mypy is not installed in the project's environment ({python}): install it there "
                "(pip install mypy) to check with it; fixloop never installs it itself")
    if returncode == 0 or returncode == 1 or (returncode == 2 and stdout.lstrip().startswith("{")):
        return ""
    last = [line for line in stderr.strip().splitlines() if line.strip()][-3:]
    return f"mypy could not check the project (exit status {returncode}): " + (" / ".join(last) or "no message")


def parse(output: str, paths: Sequence[str]) -> list[Finding] | str:
    """The errors in mypy's JSON lines in files among `paths` (notes are not findings)."""
    known = frozenset(paths)
    found = []
    for line in output.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            return "mypy's output is not the JSON lines fixloop expects (mypy 1.11 or later reads --output json)"
        if not isinstance(item, dict) or item.get("severity") != "error":
            continue
        path, row, column = item.get("file"), item.get("line"), item.get("column")
        code, message = item.get("code") or "misc", item.get("message")
        if not isinstance(path, str) or not isinstance(row, int) or row < 1 or not isinstance(message, str):
            continue
        path = path.replace("\\", "/").removeprefix("./")
        if path in known and isinstance(code, str):
            end = item.get("end_line")
            found.append(Finding(TOOL, code, message, path, row, (column + 1) if isinstance(column, int) and
                                 column >= 0 else 1, end_line=end if isinstance(end, int) and end >= row else row))
    return found

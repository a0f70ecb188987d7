"""Failing tests no change to the code can fix: an error in a test's set-up (a fixture) that never reached the
project's own code, such as a locale, a service or a data file the machine lacks. A candidate screened on them
would fail them all, and each would be a failure the search cannot remove: they are set apart from the
targets, and said. An assertion in a fixture may be about the project's values, so it stays a target; so
does a test stopped at a time limit.
"""

from __future__ import annotations

from typing import Sequence

from fixloop.core.integrity import is_test_file
from fixloop.core.model import TestReport, TestResult

MACHINE_ERRORS = frozenset({"OSError", "FileNotFoundError", "PermissionError", "IsADirectoryError", "NotADirectoryError",
                            "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "TimeoutError",
                            "BlockingIOError", "socket.gaierror", "gaierror"})


def outside_the_code(baseline: TestReport, targets: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """(the targets the code may fix, a note naming those set apart; "" when none is)."""
    wanted = set(targets)
    apart = [r for r in baseline.failed if r.nodeid in wanted and _set_up_outside_the_code(r)]
    if not apart:
        return tuple(targets), ""
    names = {r.nodeid for r in apart}
    kept = tuple(t for t in targets if t not in names)
    first = apart[0]
    where = next((f"{f.path}:{f.function}" for f in reversed(first.frames) if f.in_project), first.frames[-1].path)
    why = f"{first.exc_type}: {first.message.splitlines()[0] if first.message else ''}"[:200]
    note = (f"{len(apart)} failing test(s) error in their set-up before any of the project's code runs ({where}: "
            f"{why}): the machine's doing, not the code's; they are not targets")
    if not kept:
        return (), note + ": nothing the code can fix fails (fix the set-up, then run again)"
    return kept, note + f"; the search fixes the other {len(kept)}"


def _set_up_outside_the_code(result: TestResult) -> bool:
    """Raised in a library (the locale module, a client) or by the machine (a file, a socket), never through the
    project's own code. An ImportError or a NameError raised in a fixture itself may be the code's (a name the
    project renamed): those stay targets."""
    if result.outcome != "error" or not result.frames or result.hung or result.exc_type in ("AssertionError", ""):
        return False
    if any(f.in_project and not is_test_file(f.path) for f in result.frames):
        return False
    return not result.frames[-1].in_project or result.exc_type in MACHINE_ERRORS

"""The past fix behind a memory warning: shown as a diff, applied only after a check and a review.

"Show the past fix" (`fixloop.showRun`) shows the fix as memory re-made it at this statement.
"Apply the past fix" (`fixloop.applyPastFix`) checks it like any candidate (the integrity guard, the
safety check, the project's tests on a scratch copy in the sandbox: `fixloop.application.fixcheck`) as a session of
the run manager, so it reports progress and can be cancelled; when it passes, it is offered for review
exactly like a run's fix (per-hunk confirmation, or the `review: "client"` summary). A warning whose lines
changed since it was shown, or whose fix does not transfer, applies nothing and says why.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import unified_diff
from fixloop.lsp.providers import MemoryPattern
from fixloop.lsp.runs import Session, SessionFactory

if TYPE_CHECKING:
    from fixloop.application.run import RunRequest

STALE = "the document changed since this memory warning was shown: ask again once the warning is updated"


def run_id_for(pattern: MemoryPattern) -> str:
    """The proposal id of a warning's past fix: one per fix and statement (a shape may occur twice in a file)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "", pattern.memory_id)[:40] or "fix"  # it names a folder of the run log
    return f"memory-{safe}-{pattern.line}"


def past_fix(rel: str, text: str, pattern: MemoryPattern) -> tuple[str, Patch | None, dict[str, Any]]:
    """The warning's past fix for this document's `text` (its id is the run id), and its summary; no patch
    when there is nothing to apply (the fix does not transfer, or the lines changed: `note` says which)."""
    run_id = run_id_for(pattern)
    lines = text.splitlines(keepends=True)
    first, last = pattern.line - 1, pattern.end_line
    current = "".join(lines[first:last]) if 0 <= first < last <= len(lines) else None
    summary: dict[str, Any] = {"run_id": run_id, "status": "fixed", "message": pattern.message,
                               "diff": pattern.fix_diff, "files_changed": [], "memory_id": pattern.memory_id}
    note = STALE if current != pattern.before else ""
    if not note and pattern.replacement is None:
        note = pattern.problem or "the past fix cannot be applied here"
    if note:
        return run_id, None, {**summary, "note": note, "message": f"{pattern.message}. {note[0].upper()}{note[1:]}"}
    assert pattern.replacement is not None
    after = "".join(lines[:first]) + pattern.replacement + "".join(lines[last:])
    patch = Patch((FileChange(rel, text, after),), "memory", "replay", f"past fix {pattern.memory_id}")
    return run_id, patch, {**summary, "diff": unified_diff(patch), "files_changed": [rel], "candidates_evaluated": 0,
                           "test_runs": 0, "tokens": 0, "cost_usd": 0.0, "wall_seconds": 0.0}


def checker(patch: Patch, memory_id: str) -> SessionFactory:
    """The run manager's session for one past fix: its check, then the review of a run's fix."""

    def make(request: "RunRequest") -> Session:
        from fixloop.application.fixcheck import FixCheck  # the sandbox and the runner load only when a check is asked for

        return FixCheck(request, patch, memory_id)

    return make

"""`fixloop fix`'s exit status comes from the outcome's status and why a run could not start, not from words."""

from __future__ import annotations

from fixloop.cli import EXIT_FIXED, EXIT_INTERNAL, EXIT_NOT_FIXED, EXIT_NOTHING, exit_code
from fixloop.core.model import Status


def test_exit_codes() -> None:
    assert exit_code(Status.FIXED, False, "") == EXIT_FIXED
    assert exit_code(Status.FIXED, True, "") == EXIT_NOT_FIXED  # the fix met the user's edits: not applied
    assert exit_code(Status.NOTHING_TO_FIX, False, "") == exit_code(Status.FLAKY, False, "") == EXIT_NOTHING
    assert exit_code(Status.ERROR, False, "internal") == EXIT_INTERNAL
    assert exit_code(Status.ERROR, False, "sandbox") == exit_code(Status.ERROR, False, "") == EXIT_NOT_FIXED
    assert exit_code(Status.GAVE_UP, False, "") == EXIT_NOT_FIXED

"""Is a failure flaky? Only the failing tests run again (the first SAMPLE of them: a hundred failures of one
bug need no hundred reruns), never one that hung (its limit would be paid twice); one that passes alone is
tried once more in the baseline's selection, since a failure that depends on test order is not flakiness."""

from __future__ import annotations

from typing import Callable, Sequence

from fixloop.core.model import TestReport
from fixloop.core.ports import TestRunner

SAMPLE = 10  # failing tests run again

def flaky_among(runner: TestRunner, selection: Sequence[str], baseline: TestReport, targets: Sequence[str],
                cancelled: Callable[[], bool]) -> tuple[tuple[str, ...], int]:
    """(the targets that passed on a second try with no change, how many test runs that took)."""
    hung = {r.nodeid for r in baseline.results if r.hung}
    again = tuple(t for t in targets if t not in hung)[:SAMPLE]
    if not again:
        return (), 0
    rerun = runner.run(None, again, fail_fast=False)
    alone = {r.nodeid for r in rerun.results if r.outcome == "passed" and r.nodeid in again}
    if not alone or cancelled():
        return (), 1
    rerun = runner.run(None, selection, fail_fast=False)
    return tuple(r.nodeid for r in rerun.results if r.outcome == "passed" and r.nodeid in alone), 2

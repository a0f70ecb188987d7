"""What the run log records about test runs and model calls, beyond the loop's own counters."""

from __future__ import annotations

from typing import Callable, Iterator, Mapping

from fixloop.core.model import Event, TestReport
from fixloop.core.ports import Noting

# The run log's schema (in the "started" event): 2 added model_call events and candidate telemetry
# (CPU seconds, peak memory, proposer and operator on "tested"); 3 moved the strategy from "started" to
# its own "strategy" event, logged when the run first asks for its proposers (after the baseline); 4 added
# "confirming" (the whole suite starts for a candidate), `runs` on "tested" (which selection each run of a
# candidate used: targets, covering, full) and `where`/`limit` on "candidate".
# Readers take any earlier run (no "schema": 1) and skip what it lacks.
EVENTS_SCHEMA = 4


def counts(report: TestReport) -> dict[str, object]:
    return {
        "passed": len(report.passed),
        "failed": len(report.failed),
        "errors": len(report.collection_errors),
        "timed_out": report.timed_out,
        "problem": report.problem,
        "seconds": round(report.duration, 3),
        "cpu_seconds": round(report.cpu_seconds, 3),
        "peak_mb": round(report.peak_mb, 1),
    }


def call_fields(call: Mapping[str, object]) -> dict[str, object]:
    """A model call's record as event fields: "kind" names the event, so the call's own kind (plan,
    propose, reflect) becomes "purpose"."""
    return {("purpose" if k == "kind" else k): v for k, v in call.items()}


def said(source: object, event: Callable[[str], Event]) -> Iterator[Event]:
    """What a port had to say since the last time (a `Noting`), each message once."""
    if isinstance(source, Noting):
        notes, source.notes[:] = list(source.notes), []
        yield from (event(str(note)) for note in notes)

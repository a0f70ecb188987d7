"""The whole suite in two sandboxed pytest processes at once, each running half of its test files.

A fix is confirmed by the whole suite, one cold run as long as the baseline; on a machine with a spare core
two processes, each with about half of the tests' time, end sooner. Each pays pytest's start and its own
collection, so a suite splits only when its lighter half holds enough test time to win that back. Tests
that share state across files can fail when their files run apart: the runner takes the split run's word
for a pass only, and runs the whole suite in one process when a test that passed before does not pass
(`lost`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from fixloop.core.model import TestReport, TestResult

SPLIT_AFTER = 0.5  # seconds of tests the lighter half must hold: about what a second pytest start costs
PER_TEST = 0.005  # pytest's own time per test (hooks, reports) at most: a file of many small tests weighs more


def halves(baseline: TestReport) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The baseline's test files in two groups of about equal test time (the heaviest first, each to the
    lighter group), or None when the suite does not split: one file, a light half under SPLIT_AFTER, or a
    baseline that did not run whole (a problem, a time limit, a file that could not be collected, whose
    error the halves would not collect again)."""
    if baseline.problem or baseline.timed_out or baseline.collection_errors:
        return None
    took = [r.took for r in baseline.results]
    # What the run took beyond the tests' own times is pytest's start and collection, and its time per test.
    share = min(PER_TEST, max(0.0, baseline.duration - sum(took)) / max(1, len(took)))
    weight: dict[str, float] = defaultdict(float)
    for result, seconds in zip(baseline.results, took):
        weight[result.nodeid.split("::", 1)[0]] += seconds + share
    groups: tuple[list[str], list[str]] = ([], [])
    load = [0.0, 0.0]
    for path, seconds in sorted(weight.items(), key=lambda item: (-item[1], item[0])):
        lighter = 0 if load[0] <= load[1] else 1
        groups[lighter].append(path)
        load[lighter] += seconds
    if not groups[1] or min(load) < SPLIT_AFTER:
        return None
    return tuple(sorted(groups[0])), tuple(sorted(groups[1]))


def merged(first: TestReport, second: TestReport) -> TestReport:
    """One report of two processes that ran at the same time: every result, the longer wall time, the CPU
    added up, the larger peak, and the exit status, output and problem of the half that went wrong."""
    worse = second if first.ok and not second.ok else first
    codes = [r.returncode for r in (first, second) if r.returncode != 0]
    return TestReport(
        results=first.results + second.results,
        collection_errors=first.collection_errors + second.collection_errors,
        returncode=max(codes, default=0),
        duration=max(first.duration, second.duration),
        timed_out=first.timed_out or second.timed_out,
        output_tail=worse.output_tail,
        problem=first.problem or second.problem,
        cpu_seconds=round(first.cpu_seconds + second.cpu_seconds, 3),
        peak_mb=max(first.peak_mb, second.peak_mb),
        harness=tuple(dict.fromkeys(first.harness + second.harness)),
    )


def lost(report: TestReport, passed_before: frozenset[str]) -> tuple[str, ...]:
    """The tests that passed before and do not pass in `report` (failed, or not there at all, except a
    parametrized id, which may name the moment and change every run): what the whole suite must judge."""
    passing = {r.nodeid for r in report.results if r.outcome in ("passed", "xfailed", "xpassed")}
    ran = {r.nodeid for r in report.results}
    return tuple(sorted(t for t in passed_before - passing if t in ran or "[" not in t))


def duplicated(results: Sequence[TestResult]) -> bool:
    """A test reported twice: both halves ran it (the project's own arguments name paths of their own)."""
    ids = [r.nodeid for r in results]
    return len(ids) != len(set(ids))

"""The baseline's own rules: no cap of its own unless the user sets one, a loud stop when it is cut (with the
value to set, from how far it got), and a second look at every test that hit a limit in it (pure: no I/O).

The baseline runs before anything is known of the suite, under the coverage tracer (two to three times
slower), so a test that hits the hang probe or the per-test limit there may just be slow. The runner runs
such tests again, untraced, with the user's per-test limit (`TestClock.rejudging`) until `settle` has a
verdict for each; `rejudged` puts those verdicts in the baseline and says what became of each test.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Mapping, Sequence

from fixloop.core.model import TestReport, TestResult

ASK_MORE = 1.5  # a suggested limit is this much above the estimate, so that one try is enough


def nice(seconds: float) -> int:
    """A limit as a person would write it, rounded up: to 5 s up to a minute, 10 s up to five, then minutes."""
    step = 5 if seconds <= 60 else 10 if seconds <= 300 else 60
    return int(max(step, math.ceil(seconds / step) * step))


def estimate(elapsed: float, collected: int, finished: int) -> float:
    """What the whole baseline would take, from how far a cut one got (three times as long when it never said)."""
    if 0 < finished < collected:
        return elapsed * collected / finished
    return elapsed * 3


def cut_problem(setting: str, cap: float, elapsed: float, collected: int, finished: int, wall_seconds: float) -> str:
    """Why the run stops on a baseline cut at its cap, and exactly what to set."""
    need = estimate(elapsed, collected, finished) * ASK_MORE
    got = f"{finished} of {collected} tests" if collected else f"{finished} tests"
    head = (f"the baseline was stopped at {setting} = {cap:g} s, after {got}: fixloop does not search for a fix "
            "on a cut baseline (its failures would be guesses).")
    if setting == "baseline_timeout":
        value = nice(need)
        fix = f"--baseline-timeout {value} (or baseline_timeout = {value} in your own settings)"
    else:  # the run's own wall time was the cap: it must hold the baseline and the search after it
        value = nice(wall_seconds + need)
        fix = f"--wall-seconds {value} (or wall_seconds = {value} in your own settings)"
    return (f"{head} The whole suite would take about {need / ASK_MORE:.0f} s here: set {fix}, or run fewer tests "
            "with --test or --file.")


Place = tuple[str, str]  # the innermost project frame (path, function) where a test was stopped


def stopped_at(result: TestResult) -> Place | None:
    frames = [f for f in result.frames if f.in_project]
    return (frames[-1].path, frames[-1].function) if frames else None


def settle(again: TestReport, asked: Sequence[str], stuck: set[Place]) -> tuple[dict[str, TestResult], list[str]]:
    """(the verdicts a run of tests judged again settles, the tests it leaves to judge again).

    Within one run the report plugin gives every test after the first hang a much shorter CPU limit (so a bug
    that hangs many tests costs one wait): only a hang on the first one or at the wall limit used the whole
    per-test limit. A test cut short that way counts as hung too when it was stopped in a function where a
    test that surely hangs was stuck (the same loop); any other is judged again in a run of its own."""
    verdicts: dict[str, TestResult] = {}
    pending: list[str] = []
    tightened = False
    for result in again.results:
        if result.nodeid not in asked or result.nodeid in verdicts or result.nodeid in pending:
            continue
        place = stopped_at(result)
        sure = not tightened or "of CPU" not in result.message or (place is not None and place in stuck)
        if not result.hung or sure:
            verdicts[result.nodeid] = result
        else:
            pending.append(result.nodeid)
        if result.hung and sure and place is not None:
            stuck.add(place)
        tightened = tightened or result.hung
    ran = {r.nodeid for r in again.results}
    return verdicts, pending + [n for n in asked if n not in ran]  # a run that ended early never got to some


def rejudged(baseline: TestReport, verdicts: Mapping[str, TestResult], runs: Sequence[TestReport],
             ceiling: float) -> tuple[TestReport, list[str]]:
    """The baseline with the verdicts of the tests judged again, and what to tell the user about them."""
    hung = [r.nodeid for r in baseline.results if r.hung]
    seen = {n: r for n, r in verdicts.items() if n in hung}
    results = tuple(seen.get(r.nodeid, r) for r in baseline.results)
    merged = dataclasses.replace(baseline, results=results,
                                 duration=baseline.duration + sum(r.duration for r in runs),
                                 cpu_seconds=baseline.cpu_seconds + sum(r.cpu_seconds for r in runs),
                                 peak_mb=max([baseline.peak_mb, *(r.peak_mb for r in runs)]))
    notes: list[str] = []
    slow = [r for r in seen.values() if not r.hung]
    if slow:
        named = ", ".join(f"{r.nodeid} ({r.took:.1f} s, {r.outcome})" for r in slow[:5])
        notes.append(f"{len(slow)} test(s) ran past the baseline's hang probe or per-test limit but finished when "
                     f"run again alone, without the coverage tracer: slow, not stuck: {named}"
                     + (" ..." if len(slow) > 5 else ""))
    stuck = [n for n in hung if n not in seen or seen[n].hung]
    if stuck:
        notes.append(f"{len(stuck)} test(s) did not finish within per_test_timeout = {ceiling:g} s even alone "
                     f"(or were stuck where such a test was), so they count as hung: {', '.join(stuck[:5])}"
                     + (" ..." if len(stuck) > 5 else "")
                     + f". If they are slow rather than stuck, raise the limit: --per-test-timeout {nice(ceiling * 4)}")
    return merged, notes

"""Which tests judge a candidate, in which order (pure: the runner is a port).

The failing tests first, stopping at the first failure: most candidates end there. Then (when its tests
took `select_covering_after` seconds or more in the baseline: by default always) the passing tests that run
the code the candidate changes, stopping at the first failure too, so a candidate that breaks them costs a
few tests, not the suite. Whatever passes that is confirmed by the whole selection. Each run is recorded for the run
log: which selection, how many tests were asked for and ran.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Generator, Sequence

from fixloop.core.model import Limits, Patch, Suspect, TestReport, TestResult
from fixloop.core.ports import Apart, Covering, Paired, TestRunner


Judged = tuple[str, TestReport, list[dict[str, object]]]


@dataclass(frozen=True)
class Plan:
    """What the baseline decided about judging candidates."""

    targets: tuple[str, ...]
    scope: tuple[str, ...]  # the run's whole selection (empty: every test)
    must_keep_passing: frozenset[str]
    failing_before: frozenset[str]
    narrow: bool = False  # screen on the tests that run the changed code before the whole selection
    # The targets grouped by how they fail (the exception and where): a partial fix is a fix of whole ways.
    ways: tuple[frozenset[str], ...] = ()
    # A run narrowed to one test or file: the whole suite unpatched, run once when a fix first needs it.
    unpatched: dict[str, TestReport] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Partial:
    """A fix of some of the failing tests (the others never run the code it changes), kept while the search
    looks for a fix of all of them."""

    patch: Patch
    number: int  # its candidate number
    still: tuple[str, ...]  # the failing tests it leaves failing
    at: float  # when it was found

    def waited(self, now: float, baseline: float) -> bool:
        """The run has looked for a whole fix for about one baseline's time since (at least 2 s), as it looks
        for a smaller fix after a whole one: a single change that fixes tests which share no code it changes
        with the rest is rare, so a long search for it is mostly wasted."""
        return now - self.at > max(2.0, baseline)


FOCUS_SHARE = 0.25  # the spectrum's tests may take this share of what the baseline's tests took...
FOCUS_FLOOR = 1.0  # ...or this many seconds, whichever is more (they run two to three times slower, traced)


def focus(baseline: TestReport, failing: frozenset[str]) -> tuple[str, ...]:
    """The tests the spectrum records: failing ones, then the passing tests of their test files nearest to
    them first (same class, same test function with other parameters), while their baseline times add up
    to FOCUS_SHARE of the suite's (at least FOCUS_FLOOR s; always one failing test). The baseline runs
    untraced, since recording every test's lines costs two to three times the suite; the passing tests
    beside a failing one run the same code with other inputs, and are the health evidence that ranks its
    lines, so the nearest are worth the most."""
    files = {t.split("::", 1)[0] for t in failing}
    took = _costs(baseline)
    budget = max(FOCUS_FLOOR, FOCUS_SHARE * sum(took(r) for r in baseline.results))
    failed = [r for r in baseline.results if r.nodeid in failing]
    chosen = [r.nodeid for r in failed[:1]] or sorted(failing)[:1]
    budget -= sum(took(r) for r in failed[:1])
    near = [_parts(t) for t in failing]
    passing = [r for r in baseline.results if r.outcome == "passed" and r.nodeid.split("::", 1)[0] in files]
    passing.sort(key=lambda r: -max(_shared(_parts(r.nodeid), f) for f in near))  # stable: suite order within
    # The other failing tests take at most half of what is left when passing ones are there to take: with
    # sixty failing tests and none passing beside them, every line a failing test runs looks as suspect.
    others = budget / 2 if passing else budget
    # A test too dear for what is left is passed over, not the end of the choice: the first test to import a
    # heavy module (numpy) takes that import's time, and stopping there recorded one failing test of 142,
    # which makes every line it ran look as suspect as the fault.
    for r in failed[1:]:
        if took(r) <= others:
            others -= took(r)
            budget -= took(r)
            chosen.append(r.nodeid)
    for r in passing:
        if took(r) <= budget:
            budget -= took(r)
            chosen.append(r.nodeid)
    # Failing tests last: a cache or lazy set-up fills in whichever test needs it first, and its lines
    # would otherwise look as if only a failing test ran them.
    return tuple([t for t in chosen if t not in failing] + [t for t in chosen if t in failing])


def _parts(nodeid: str) -> tuple[str, ...]:
    """A node id's file, classes and function, then its parameters (`test_x[1]` and `test_x[2]` share four)."""
    *scopes, last = nodeid.split("::")
    name, _, params = last.partition("[")
    return (*scopes, name, params)


def _shared(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


PER_TEST_CAP = 0.1  # seconds of pytest's own time one test is charged at most (the rest is not per test)


def _costs(baseline: TestReport) -> Callable[[TestResult], float]:
    """What a test costs in a run: its own time plus its share of pytest's (collection, reporting, plugin
    hooks), which is in the run's wall time but in no test's. With hundreds of millisecond tests that share
    is most of a run, and traced it grows with the rest: budgeting on the tests' own times alone recorded
    300 tests where 100 were meant."""
    results = baseline.results
    spent = sum(r.took for r in results)
    share = min(PER_TEST_CAP, max(0.0, baseline.duration - spent) / len(results)) if results else 0.0
    return lambda r: r.took + share


LONG_SUITE = 10.0  # seconds of tests in the baseline from which the run says that it narrows


def narrowing(runner: TestRunner, baseline: TestReport, targets: tuple[str, ...], limits: Limits) -> tuple[bool, str]:
    """(whether candidates are screened on the covering tests before the whole selection, the note that says
    so on a long suite). The suite's length is what its tests took in the baseline: time spent stopping hung
    tests says nothing of it. A warm screen of the covering tests costs a fraction of a cold run of the
    suite, so even on a suite of seconds a candidate that breaks a test beside the failing one is caught
    there, not by a whole run."""
    after = limits.select_covering_after
    took = sum(r.took for r in baseline.results if not r.hung)
    if not isinstance(runner, Covering) or not targets or took < after:
        return False, ""
    if took < max(after, LONG_SUITE):
        return True, ""
    return True, (f"the tests took {took:.0f} s in the baseline: a candidate is screened on the failing tests, then "
                  "on the passing tests that run the code it changes; the whole selection confirms a fix")


def judge(runner: TestRunner, patch: Patch, plan: Plan) -> Generator[str, None, Judged]:
    """Returns (failed | plausible | partial, the last run's report with the cost of all runs, a record of
    each run); yields `confirming` before the whole selection runs. A failing test that never runs the code
    the patch changes fails with it as without it: the patch cannot fix every failing test, but it is
    judged on the others, and passing all of them and breaking nothing it is `partial` (a fix of one of
    several faults: a test that fails for another reason, often the machine's, must not block it)."""
    runs: list[TestReport] = []
    records: list[dict[str, object]] = []

    def tests(select: tuple[str, ...], fail_fast: bool, kind: str, ran: TestReport | None = None) -> TestReport:
        report = ran if ran is not None else runner.run(patch, select, fail_fast=fail_fast)
        runs.append(report)
        records.append({"selection": kind, "asked": len(select), "tests": list(select[:10]),
                        "ran": len(report.results), "seconds": round(report.duration, 3)})
        return report

    targets = screened_on(runner, patch, plan)
    status = "failed"
    passed = _targets_pass(tests(targets or plan.scope, True, "targets" if targets else "scope"), targets)
    covering = _covering(runner, patch, plan) if passed else None
    if covering:
        passed = _all_passed(tests(covering, True, "covering"), covering)
    if passed:
        yield "confirming"
        full = tests(plan.scope, False, "full")
        # Targets must really pass (not xfail), passing tests keep passing (missing counts as
        # broken), and no test fails that did not fail before (a cut-short baseline hides some).
        passing_now = {r.nodeid for r in full.results if r.outcome == "passed"}
        broken = _renamed_away(sorted((plan.must_keep_passing | set(targets)) - passing_now), plan, full)
        broken += sorted({r.nodeid for r in full.failed} - plan.failing_before)
        if not full.problem and not full.timed_out and not full.collection_errors and not broken:
            whole = targets == plan.targets or all(t in passing_now for t in plan.targets)  # set apart, yet passed
            status = "plausible" if whole else "partial"
        if status != "failed" and plan.scope and not _keeps_the_suite(runner, patch, plan, tests, records):
            status = "failed"
    # The candidate's cost is all its runs: CPU added up, memory at its peak.
    report = replace(runs[-1], cpu_seconds=sum(r.cpu_seconds for r in runs), peak_mb=max(r.peak_mb for r in runs))
    return status, report, records


def _keeps_the_suite(runner: TestRunner, patch: Patch, plan: Plan, tests: Callable[..., TestReport],
                     records: list[dict[str, object]]) -> bool:
    """A fix of a run narrowed to one test or file breaks no other test of the suite: the whole suite with the
    fix against the whole suite without it (run once; both at the same time when the runner can). When the
    suite cannot run whole unpatched (cut at its time limit), the narrowed selection's word stands."""
    before = plan.unpatched.get("suite")
    ran: TestReport | None = None
    if before is None:
        if isinstance(runner, Paired):
            before, ran = runner.run_pair(patch, ())
        else:
            before = runner.run(None, (), fail_fast=False)
        plan.unpatched["suite"] = before
        records.append({"selection": "suite unpatched", "asked": 0, "tests": [], "ran": len(before.results),
                        "seconds": round(before.duration, 3)})
    if before.problem or before.timed_out or before.collection_errors:
        return True
    after = tests((), False, "suite", ran)
    if after.problem or after.timed_out or after.collection_errors:
        return False
    kept = frozenset(r.nodeid for r in before.results if r.outcome == "passed")
    failed_before = frozenset(r.nodeid for r in before.failed)
    passing_now = {r.nodeid for r in after.results if r.outcome == "passed"}
    whole = replace(plan, must_keep_passing=kept, failing_before=failed_before)
    broken = _renamed_away(sorted(kept - passing_now), whole, after)
    return not broken and not ({r.nodeid for r in after.failed} - failed_before - set(plan.targets))


def _renamed_away(missing: list[str], plan: Plan, full: TestReport) -> list[str]:
    """`missing` without the tests that only changed their parameters' id: a test parametrized with the moment
    (`test_parse[11-28-2026 13:43:34]`) has a new id in every run. An id absent from the run counts as passing
    when a passing id of the same test function, unknown to the baseline, is there to stand for it."""
    known = plan.must_keep_passing | plan.failing_before | set(plan.targets)
    ran = {r.nodeid for r in full.results}
    fresh = Counter(_function(r.nodeid) for r in full.results
                    if r.outcome == "passed" and r.nodeid not in known and "[" in r.nodeid)
    broken = []
    for nodeid in missing:
        stem = _function(nodeid)
        if nodeid not in ran and "[" in nodeid and fresh[stem] > 0:
            fresh[stem] -= 1
            continue
        broken.append(nodeid)
    return broken


def _function(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


SHARED_SUSPECTS = 10  # the top suspect lines that tie two ways of failing into one fault


def joined(plan: Plan, runner: TestRunner, suspects: Sequence[Suspect]) -> Plan:
    """`plan` with its ways of failing joined where failing tests of both ran one of the top suspect lines:
    one fault seen from two sides, not two (python-dateutil's leap-day bug in `relativedelta` fails its own
    tests and, through it, two time zone tests, which a change in the parser made pass). A failing test whose
    lines were not recorded may share anything: then all are one."""
    if len(plan.ways) < 2 or not isinstance(runner, Apart):
        return plan
    top = {(s.path, s.line) for s in suspects[:SHARED_SUSPECTS]}
    groups: list[tuple[frozenset[str], frozenset[tuple[str, int]]]] = []
    for way in plan.ways:
        ran = [runner.lines_of(t) for t in way]
        if any(lines is None for lines in ran):
            return replace(plan, ways=())
        tests, lines = way, frozenset(x for r in ran if r is not None for x in r & top)
        for other in [g for g in groups if g[1] & lines]:  # the groups before are disjoint: join every one met
            groups.remove(other)
            tests, lines = tests | other[0], lines | other[1]
        groups.append((tests, lines))
    return replace(plan, ways=tuple(tests for tests, _ in groups))


def screened_on(runner: TestRunner, patch: Patch, plan: Plan) -> tuple[str, ...]:
    """The failing tests a candidate is screened on: all of them, less those it cannot change when they
    make up whole ways of failing and leave some failing test to judge it on (failing in another way, they
    are another fault, or the machine's)."""
    if len(plan.ways) < 2 or not isinstance(runner, Apart):
        return plan.targets
    apart = runner.apart(patch, plan.targets)
    whole = frozenset(t for way in plan.ways if way <= apart for t in way)
    return tuple(t for t in plan.targets if t not in whole) if whole < set(plan.targets) else plan.targets


def _covering(runner: TestRunner, patch: Patch, plan: Plan) -> tuple[str, ...] | None:
    """On a long suite, the passing tests that run the code `patch` changes (the targets just passed)."""
    if not plan.narrow or not plan.targets or not isinstance(runner, Covering):
        return None
    tests = runner.covering(patch)
    return None if tests is None else tuple(sorted((tests & plan.must_keep_passing) - set(plan.targets)))


def _all_passed(report: TestReport, select: tuple[str, ...]) -> bool:
    """Every test of `select` ran and passed (a fail-fast run stops at the first that did not)."""
    if report.problem or report.timed_out or report.collection_errors:
        return False
    seen = {r.nodeid: r.outcome for r in report.results}
    return all(seen.get(t) == "passed" for t in select)


def _targets_pass(report: TestReport, targets: tuple[str, ...]) -> bool:
    if report.problem or report.timed_out or report.collection_errors:
        return False
    seen = {r.nodeid: r for r in report.results}
    return all(t in seen and seen[t].outcome == "passed" for t in targets) if targets else not report.failed


def still_failing(report: TestReport | None, targets: tuple[str, ...]) -> tuple[str, ...]:
    """The targets a partial fix leaves failing (`report`: its whole run)."""
    passed = {r.nodeid for r in report.passed} if report is not None else set()
    return tuple(t for t in targets if t not in passed)


def in_part(still: tuple[str, ...], targets: tuple[str, ...]) -> str:
    """What the end message adds for a partial fix."""
    if not still:
        return ""
    named = ", ".join(still[:3]) + (", ..." if len(still) > 3 else "")
    verb = "never runs the changed code and fails" if len(still) == 1 else "never run the changed code and fail"
    return (f" (fixes {len(targets) - len(still)} of the {len(targets)} failing tests; {named} {verb} as before: "
            "another fault, or the machine)")

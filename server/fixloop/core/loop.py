"""The repair loop, top to bottom: baseline, retrieve, localize, propose, check, run, reflect, learn.

`run()` is a generator of Events whose return value is the Outcome. It performs no I/O itself;
every side effect goes through `Ports`.
"""

from __future__ import annotations

from dataclasses import replace
from collections import deque
from typing import Generator, Iterator

from .model import (
    Attempt,
    Event,
    Outcome,
    Patch,
    Reflection,
    Status,
    Task,
    TestReport,
    Usage,
    Verdict,
)
from .patch import patch_size, unified_diff
from .ports import Metered, Ports, Prefetching, ProposalContext, Proposer, Reflector
from .signature import describe_collection_error, report_signature

Run = Generator[Event, None, Outcome]

# A fix has no business with pytest's internals or fixloop's report: adding these words is refused.
HARNESS_WORDS = ("FIXLOOP_", "fixloop_report", ".fixloop_runtime", "_pytest", "pytest_runtest", "XFailed",
                 "atexit", "os._exit", "sys.settrace")
HARNESS_FILES = frozenset({"pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "sitecustomize.py",
                           "usercustomize.py"})


class _State:
    def __init__(self, run_id: str, started: float) -> None:
        self.run_id = run_id
        self.started = started
        self.iterations = 0
        self.candidates = 0
        self.test_runs = 0
        self.plausible: list[Patch] = []
        self.seen: set[tuple[tuple[str, str], ...]] = set()
        self.durations: dict[str, float] = {}
        self.last_signatures: list[str] = []
        self.lookahead = 0


def run(task: Task, ports: Ports, run_id: str) -> Run:
    s = _State(run_id, ports.now())

    def event(kind: str, phase: str = "", candidate: int | None = None, **data: object) -> Event:
        return Event(kind, run_id, ports.now(), phase, candidate, data)

    def finish(status: Status, message: str, ctx: ProposalContext | None, baseline: TestReport | None,
               patch: Patch | None = None, flaky: tuple[str, ...] = ()) -> Outcome:
        s.durations["total"] = ports.now() - s.started
        outcome = Outcome(
            status=status, run_id=run_id, message=message, patch=patch,
            attempts=tuple(ctx.attempts) if ctx else (), baseline=baseline,
            iterations=s.iterations, candidates_evaluated=s.candidates, test_runs=s.test_runs,
            plausible=len(s.plausible), usage=_usage(ports), durations=dict(s.durations), flaky=flaky,
        )
        if ports.memory is not None:
            ports.memory.record_outcome(outcome, ctx)
        return outcome

    def _cancelled() -> Run:
        outcome = finish(Status.CANCELLED, "cancelled", None, None)
        yield event("finished", "done", status=outcome.status.value, message=outcome.message)
        return outcome

    yield event("started", "start", workspace=str(task.workspace), scope=task.scope.kind, target=task.scope.value,
                seed=task.seed)

    # 1. Baseline: which tests fail now, and do they fail reliably?
    t0 = ports.now()
    baseline = ports.runner.run(None, task.scope.selection(), fail_fast=False)
    s.test_runs += 1
    s.durations["baseline"] = ports.now() - t0
    yield event("baseline", "baseline", **_counts(baseline), signature=report_signature(baseline))
    if baseline.problem:
        outcome = finish(Status.ERROR, baseline.problem, None, baseline)
        yield event("finished", "done", status=outcome.status.value, message=outcome.message)
        return outcome
    if not baseline.results and not baseline.collection_errors:
        outcome = finish(Status.NOTHING_TO_FIX, "no tests were collected", None, baseline)
        yield event("finished", "done", status=outcome.status.value, message=outcome.message)
        return outcome
    targets = tuple(r.nodeid for r in baseline.failed)
    if not targets and not baseline.collection_errors and not baseline.timed_out:
        outcome = finish(Status.NOTHING_TO_FIX, f"all {len(baseline.results)} tests pass", None, baseline)
        yield event("finished", "done", status=outcome.status.value, message=outcome.message)
        return outcome
    if ports.cancelled():
        return (yield from _cancelled())
    if targets and not baseline.collection_errors:
        # The same selection as the baseline: a failure that depends on test order is not flakiness.
        rerun = ports.runner.run(None, task.scope.selection(), fail_fast=False)
        s.test_runs += 1
        flaky = tuple(r.nodeid for r in rerun.results if r.outcome == "passed" and r.nodeid in targets)
        if flaky and len(flaky) == len(targets):
            outcome = finish(Status.FLAKY, "the failing tests passed on a rerun with no change: flaky, not broken",
                             None, baseline, flaky=flaky)
            yield event("finished", "done", status=outcome.status.value, message=outcome.message, flaky=list(flaky))
            return outcome
        targets = tuple(t for t in targets if t not in flaky)
    must_keep_passing = frozenset(r.nodeid for r in baseline.results if r.outcome == "passed")
    failing_before = frozenset(r.nodeid for r in baseline.failed)
    if ports.cancelled():
        return (yield from _cancelled())

    sources = ports.runner.sources()
    ctx = ProposalContext(sources=sources, baseline=baseline, target_tests=targets, is_test_file=ports.is_test_file,
                          workspace=getattr(ports.runner, "root", None))

    # 2. Retrieve what memory knows about failures like this one.
    if ports.memory is not None:
        ctx.lessons = ports.memory.recall(baseline, sources)
        ctx.priors = ports.memory.priors(baseline)
        yield event("retrieved", "retrieve", lessons=len(ctx.lessons))

    # 3. Localize.
    t0 = ports.now()
    if ports.localizer is not None:
        ctx.suspects = ports.localizer.localize(baseline, sources, targets)
        s.test_runs += 1 if getattr(ports.localizer, "runs_tests", False) else 0
    s.durations["localize"] = ports.now() - t0
    note = str(getattr(ports.localizer, "note", ""))
    yield event("localized", "localize", suspects=[f"{x.path}:{x.line}" for x in ctx.suspects[:10]], note=note)
    if ports.cancelled():
        return (yield from _cancelled())

    # 4-7. Propose, check, run, reflect, learn; cheapest proposer first.
    t_candidates = ports.now()
    stop: tuple[Status, str] | None = None
    winner: Patch | None = None
    for proposer in ports.proposers:
        s.last_signatures.clear()
        for patch, early_verdict in _checked_ahead(proposer, ctx, ports, targets):
            for note in _notes(proposer):
                yield event("note", "propose", proposer=proposer.name, message=note)
            stop = _limit_reached(task, s, ports)
            if stop:
                break
            if winner is not None:
                # Overfitting guard: look a little further for a smaller patch that also passes everything.
                s.lookahead += 1
                if s.lookahead > task.limits.plausible_lookahead:
                    break
                if patch_size(patch) >= patch_size(winner):
                    continue
            if patch.key() in s.seen:
                continue
            s.seen.add(patch.key())
            s.candidates += 1
            s.iterations += 1 if proposer.adaptive else 0
            index = s.candidates
            diff = unified_diff(patch)
            yield event("candidate", "propose", index, proposer=proposer.name, operator=patch.operator,
                        summary=patch.summary, diff=diff, iteration=s.iterations, tokens=_usage(ports).tokens)

            attempt, bad = _guard(patch, index, ports)
            if bad:
                ctx.attempts.append(attempt)
                yield event("checked", "check", index, ok=False, reason=attempt.note)
                continue
            if ports.safety is not None:
                verdict = early_verdict or ports.safety.check(patch)
                yield event("checked", "check", index, ok=verdict.ok, reason=verdict.reason,
                            findings=[f"{f.code} {f.path}:{f.line} {f.message}" for f in verdict.findings])
                if not verdict.ok:
                    ctx.attempts.append(Attempt(index, patch, "unsafe", verdict=verdict, note=verdict.reason))
                    continue

            t0 = ports.now()
            report = ports.runner.run(patch, targets or task.scope.selection(), fail_fast=True)
            s.test_runs += 1
            status = "failed"
            if _targets_pass(report, targets):
                full = ports.runner.run(patch, task.scope.selection(), fail_fast=False)
                s.test_runs += 1
                # Targets must really pass (not xfail), passing tests keep passing (missing counts as
                # broken), and no test fails that did not fail before (a cut-short baseline hides some).
                passing_now = {r.nodeid for r in full.results if r.outcome == "passed"}
                broken = sorted((must_keep_passing | set(targets)) - passing_now)
                broken += sorted({r.nodeid for r in full.failed} - failing_before)
                if not full.problem and not full.timed_out and not full.collection_errors and not broken:
                    status = "plausible"
                report = full
            attempt = Attempt(index, patch, status, report=report, duration=ports.now() - t0)
            yield event("tested", "run", index, status=status, iteration=s.iterations, tokens=_usage(ports).tokens,
                        **_counts(report))

            if status == "plausible":
                s.plausible.append(patch)
                ctx.attempts.append(attempt)
                if ports.memory is not None:
                    ports.memory.record_attempt(run_id, attempt, ctx)
                winner = _smallest(s.plausible)
                if proposer.adaptive:
                    break  # never ask a model for more after a fix: that costs tokens
                continue

            reflection = _reflect(proposer, attempt, ctx, targets)
            attempt = replace(attempt, reflection=reflection)
            ctx.attempts.append(attempt)
            if ports.memory is not None:
                ports.memory.record_attempt(run_id, attempt, ctx)
            yield event("reflected", "reflect", index, signature=reflection.signature,
                        hypothesis=reflection.root_cause)

            if proposer.adaptive:
                s.last_signatures.append(reflection.signature)
                tail = s.last_signatures[-task.limits.breaker_repeats:]
                if len(tail) == task.limits.breaker_repeats and len(set(tail)) == 1:
                    message = (f"the same failure came back {task.limits.breaker_repeats} times in a row "
                               f"({reflection.signature[:160]}); stopping instead of repeating it")
                    yield event("breaker", "reflect", index, message=message)
                    stop = (Status.GAVE_UP, message)
                    break
        for note in _notes(proposer):
            yield event("note", "propose", proposer=proposer.name, message=note)
        if not stop and not winner:
            stop = _limit_reached(task, s, ports)  # a proposer that ran out of budget ends the run here
        if stop or winner:
            break
    s.durations["candidates"] = ports.now() - t_candidates

    if winner is not None:
        outcome = finish(Status.FIXED, f"fixed by {winner.proposer}/{winner.operator}: {winner.summary}",
                         ctx, baseline, patch=winner)
    elif stop is not None:
        outcome = finish(stop[0], stop[1], ctx, baseline)
    elif baseline.collection_errors:
        outcome = finish(Status.GAVE_UP, "the tests could not be collected and no candidate fixed it "
                         f"({s.candidates} tried): {describe_collection_error(baseline.collection_errors[0])}",
                         ctx, baseline)
    else:
        outcome = finish(Status.GAVE_UP, f"no candidate made the failing tests pass ({s.candidates} tried)"
                         + (f"; {note}" if note else ""), ctx, baseline)
    yield event("finished", "done", status=outcome.status.value, message=outcome.message,
                diff=unified_diff(outcome.patch) if outcome.patch else "")
    return outcome


def _checked_ahead(proposer: Proposer, ctx: ProposalContext, ports: Ports, targets: tuple[str, ...]
                   ) -> Iterator[tuple[Patch, Verdict | None]]:
    """Candidates in order, with their safety verdict when it was taken early. A runner with spare lanes
    gets the next few candidates that passed the guard and the safety check, to screen in parallel;
    an adaptive proposer (it reads each result) is never read ahead."""
    width = ports.runner.lanes() if isinstance(ports.runner, Prefetching) and not proposer.adaptive else 1
    if width <= 1:
        yield from ((patch, None) for patch in proposer.propose(ctx))
        return
    window: deque[tuple[Patch, Verdict | None]] = deque()
    for patch in proposer.propose(ctx):
        verdict = ports.safety.check(patch) if ports.safety is not None else None
        if (verdict is None or verdict.ok) and not _guard(patch, 0, ports)[1]:
            ports.runner.prefetch(patch, targets)
        window.append((patch, verdict))
        if len(window) >= width:
            yield window.popleft()
    yield from window


def _limit_reached(task: Task, s: _State, ports: Ports) -> tuple[Status, str] | None:
    """Every limit is checked here, and only here."""
    limits = task.limits
    if ports.cancelled():
        return Status.CANCELLED, "cancelled"
    if ports.now() - s.started > limits.wall_seconds:
        return Status.LIMITS, f"wall-time limit of {limits.wall_seconds:.0f} s reached"
    if s.candidates >= limits.max_candidates:
        return Status.LIMITS, f"candidate limit of {limits.max_candidates} reached"
    if s.iterations >= limits.max_iterations:
        return Status.LIMITS, f"iteration limit of {limits.max_iterations} reached"
    usage = _usage(ports)
    if usage.tokens > limits.max_tokens:
        return Status.LIMITS, f"token budget of {limits.max_tokens} exceeded ({usage.tokens} spent)"
    if usage.cost_usd > limits.max_cost_usd:
        return Status.LIMITS, f"cost budget of ${limits.max_cost_usd:.2f} exceeded (${usage.cost_usd:.4f} spent)"
    return None


def _guard(patch: Patch, index: int, ports: Ports) -> tuple[Attempt, bool]:
    """The test-integrity guard: candidates may not edit tests, skip them, or reach for the test harness."""
    for change in patch.changes:
        if ports.is_test_file(change.path):
            return Attempt(index, patch, "rejected", note=f"edits a test file ({change.path})"), True
        if change.path.startswith(".fixloop") or change.path.rsplit("/", 1)[-1] in HARNESS_FILES:
            return Attempt(index, patch, "rejected", note=f"edits the test harness ({change.path})"), True
        reaching = [w for w in HARNESS_WORDS if change.after.count(w) > change.before.count(w)]
        if reaching:
            return Attempt(index, patch, "rejected",
                           note=f"reaches into the test harness ({', '.join(reaching)} in {change.path})"), True
        added = change.after.count("pytest.mark.skip") + change.after.count("pytest.mark.xfail") + \
            change.after.count("pytest.skip(") + change.after.count("pytest.xfail(")
        removed = change.before.count("pytest.mark.skip") + change.before.count("pytest.mark.xfail") + \
            change.before.count("pytest.skip(") + change.before.count("pytest.xfail(")
        if added > removed:
            return Attempt(index, patch, "rejected", note=f"adds a skip or xfail marker ({change.path})"), True
    if not patch.changes or all(c.before == c.after for c in patch.changes):
        return Attempt(index, patch, "rejected", note="empty patch"), True
    return Attempt(index, patch, "pending"), False


def _targets_pass(report: TestReport, targets: tuple[str, ...]) -> bool:
    if report.problem or report.timed_out or report.collection_errors:
        return False
    seen = {r.nodeid: r for r in report.results}
    return all(t in seen and seen[t].outcome == "passed" for t in targets) if targets else not report.failed


def _reflect(proposer: object, attempt: Attempt, ctx: ProposalContext, targets: tuple[str, ...]) -> Reflection:
    signature = report_signature(attempt.report, targets) if attempt.report else "unknown"
    if isinstance(proposer, Reflector):
        richer = proposer.reflect(attempt, ctx)
        if richer is not None:
            return replace(richer, signature=signature)
    return Reflection(signature=signature)


def _smallest(plausible: list[Patch]) -> Patch:
    return min(plausible, key=patch_size)


def _notes(proposer: object) -> list[str]:
    """Messages a proposer wants the run to show once (e.g. "no API key"); drained as they are read."""
    notes = getattr(proposer, "notes", None)
    if not isinstance(notes, list) or not notes:
        return []
    out = [str(n) for n in notes]
    notes.clear()
    return out


def _usage(ports: Ports) -> Usage:
    total = Usage()
    for p in ports.proposers:
        if isinstance(p, Metered):
            total = total + p.usage()
    return total


def _counts(report: TestReport) -> dict[str, object]:
    return {
        "passed": len(report.passed),
        "failed": len(report.failed),
        "errors": len(report.collection_errors),
        "timed_out": report.timed_out,
        "problem": report.problem,
        "seconds": round(report.duration, 3),
    }


def drive(gen: Run, on_event=lambda e: None) -> Outcome:  # type: ignore[no-untyped-def]
    """Run a loop generator to the end, handing each event to `on_event`."""
    while True:
        try:
            on_event(next(gen))
        except StopIteration as stop:
            return stop.value

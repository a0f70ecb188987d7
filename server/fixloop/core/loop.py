"""The repair loop, top to bottom: baseline, retrieve, localize, propose, check, run, reflect, learn.

`run()` is a generator of Events whose return value is the Outcome. It performs no I/O itself;
every side effect goes through `Ports`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Generator, Iterator

from fixloop.core.model import PREFER, REJECT, Attempt, Event, Outcome, Patch, Status, Task, TestReport, Verdict
from fixloop.core.review import preference
from fixloop.core import limits
from fixloop.core.flaky import flaky_among
from fixloop.core.environment import outside_the_code
from fixloop.core.ahead import checked_ahead
from fixloop.core.guard import rejection
from fixloop.core.patch import changed_at, unified_diff
from fixloop.core.selection import Partial, Plan, in_part, joined, judge, narrowing, screened_on, still_failing
from fixloop.core.ports import CallLogging, Ports, ProposalContext, Proposer
from fixloop.core.stacking import STACK_MAX, Merged, OnTop, on_partial
from fixloop.core.ending import CANCELLED, End, limit_reached, usage
from fixloop.core.signature import describe_collection_error, failure_ways, reflect, report_signature
from fixloop.core.telemetry import EVENTS_SCHEMA, call_fields, counts as _counts, said

Run = Generator[Event, None, Outcome]

REVIEWS = 3  # fixes a reviewer may reject in one run before the run gives up


def run(task: Task, ports: Ports, run_id: str) -> Run:
    r = _Run(task, ports, run_id)
    yield r.event("started", "start", workspace=str(task.workspace), scope=task.scope.kind, target=task.scope.value,
                  seed=task.seed, schema=EVENTS_SCHEMA)
    end = yield from r.take_baseline()  # 1. which tests fail now, and do they fail reliably?
    if end is not None:
        return (yield from r.finish(end))
    ctx = r.context()
    yield from r.retrieve(ctx)  # 2. what memory knows about failures like this one
    note = yield from r.localize(ctx)  # 3. where the fault probably is
    if ports.cancelled():
        return (yield from r.finish(CANCELLED))
    stop = yield from r.search(ctx)  # 4-7. propose, check, run, reflect, learn; cheapest proposer first
    stop = yield from r.reviewed(ctx, stop)  # 8. the reviewer's word: a rejected fix makes the search go on
    return (yield from r.finish(r.verdict(stop, note), ctx))


class _Run:
    """One run's counters and the phases of `run`, each a generator of events returning its result."""

    def __init__(self, task: Task, ports: Ports, run_id: str) -> None:
        self.task = task
        self.ports = ports
        self.run_id = run_id
        self.started = ports.now()
        self.iterations = self.candidates = self.test_runs = 0
        self.plausible: list[Patch] = []
        self.winner: Patch | None = None
        self.seen: set[tuple[tuple[str, str], ...]] = set()
        self.durations: dict[str, float] = {}
        self.last_signatures: list[str] = []
        self.lookahead = 0
        self.fixed_at = 0.0  # when the first fix was found
        self.baseline: TestReport | None = None
        self.targets: tuple[str, ...] = ()
        self.must_keep_passing: frozenset[str] = frozenset()
        self.failing_before: frozenset[str] = frozenset()
        self.plan = Plan((), (), frozenset(), frozenset())  # how candidates are judged (set by the baseline)
        self.selections: list[dict[str, object]] = []  # the test runs of the candidate last tested
        self.numbers: dict[tuple[tuple[str, str], ...], int] = {}  # a plausible fix's candidate number
        self.rejected: list[str] = []  # why the reviewer rejected each fix it did
        self.partial: Partial | None = None  # a fix of some failing tests, offered when none of all follows
        self.partials: list[Partial] = []  # every such fix of the search's round: the next round merges them first
        self.bases: list[Partial] = []  # the fixes of some targets the search went on from, in turn

    def event(self, kind: str, phase: str = "", candidate: int | None = None, **data: object) -> Event:
        return Event(kind, self.run_id, self.ports.now(), phase, candidate, data)

    # ---- 1. baseline -------------------------------------------------------------------------
    def take_baseline(self) -> Generator[Event, None, End | None]:
        """Run the selection as it is; the end of the run when there is nothing to repair."""
        ports, task = self.ports, self.task
        t0 = ports.now()
        baseline = self.baseline = ports.runner.run(None, task.scope.selection(), fail_fast=False)
        self.test_runs += 1
        self.durations["baseline"] = ports.now() - t0
        yield self.event("baseline", "baseline", **_counts(baseline), signature=report_signature(baseline))
        yield from said(ports.runner, lambda note: self.event("note", "baseline", message=note))  # e.g. slow tests
        if baseline.problem:
            return End(Status.ERROR, baseline.problem)
        if not baseline.results and not baseline.collection_errors:
            return End(Status.NOTHING_TO_FIX, "no tests were collected")
        targets = tuple(r.nodeid for r in baseline.failed)
        if not targets and not baseline.collection_errors and not baseline.timed_out:
            return End(Status.NOTHING_TO_FIX, f"all {len(baseline.results)} tests pass")
        if ports.cancelled():
            return CANCELLED
        if targets and not baseline.collection_errors:
            flaky, runs = flaky_among(ports.runner, task.scope.selection(), baseline, targets, ports.cancelled)
            self.test_runs += runs
            if flaky and len(flaky) == len(targets):
                return End(Status.FLAKY, "the failing tests passed on a rerun with no change: flaky, not broken",
                            flaky=flaky)
            targets = tuple(t for t in targets if t not in flaky)
        targets, apart = outside_the_code(baseline, targets)  # a set-up that fails before the code runs
        if apart:
            yield self.event("note", "baseline", message=apart)
            if not targets:
                return End(Status.NOTHING_TO_FIX, apart)
        self.targets = targets
        self.must_keep_passing = frozenset(r.nodeid for r in baseline.results if r.outcome == "passed")
        self.failing_before = frozenset(r.nodeid for r in baseline.failed)
        narrow, note = narrowing(ports.runner, baseline, targets, task.limits)  # covering tests first
        if note:
            yield self.event("note", "baseline", selection="covering", message=note)
        ways = tuple(frozenset(w) for w in failure_ways([r for r in baseline.failed if r.nodeid in targets]).values())
        self.plan = Plan(targets, task.scope.selection(), self.must_keep_passing, self.failing_before, narrow, ways)
        return CANCELLED if ports.cancelled() else None

    def context(self) -> ProposalContext:
        ports, baseline, targets = self.ports, self.baseline, self.targets
        assert baseline is not None
        return ProposalContext(sources=ports.runner.sources(), baseline=baseline, target_tests=targets,
                               is_test_file=ports.is_test_file, workspace=ports.runner.root)

    # ---- 2. retrieve, 3. localize ------------------------------------------------------------
    def retrieve(self, ctx: ProposalContext) -> Iterator[Event]:
        memory = self.ports.memory
        if memory is not None:
            t0 = self.ports.now()
            ctx.lessons = memory.recall(ctx.baseline, ctx.sources)
            ctx.priors = memory.priors(ctx.baseline)
            yield self.event("retrieved", "retrieve", lessons=len(ctx.lessons),
                             seconds=round(self.ports.now() - t0, 4))
            yield from said(memory, lambda note: self.event("note", "retrieve", message=note))  # e.g. shared memory out of reach

    def localize(self, ctx: ProposalContext) -> Generator[Event, None, str]:
        """Rank suspect lines; returns what the localizer found worth saying (said again if nothing fixes it)."""
        localizer = self.ports.localizer
        t0 = self.ports.now()
        note = ""
        if localizer is not None:
            ctx.suspects = tuple(localizer.localize(ctx.baseline, ctx.sources, self.targets))
            self.plan = joined(self.plan, self.ports.runner, ctx.suspects)  # ways that share a suspect: one fault
            self.test_runs += 1 if localizer.runs_tests else 0
            note = localizer.note
        self.durations["localize"] = self.ports.now() - t0
        yield self.event("localized", "localize", suspects=[f"{x.path}:{x.line}" for x in ctx.suspects[:10]],
                         note=note)
        return note

    # ---- 4-7. candidates ---------------------------------------------------------------------
    def search(self, ctx: ProposalContext) -> Generator[Event, None, End | None]:
        """Each proposer in turn until one fixes it or a limit stops the run (then: that end); after a fix of some
        failing targets only, the same again on top of it for the others (core/stacking.py)."""
        t0, proposers, bases = self.ports.now(), list(self.ports.proposers), self.bases
        stop = yield from self.search_round(ctx, proposers)
        while (self.winner is None and self.partial is not None and len(bases) < STACK_MAX and not self.ports.cancelled()
               and (stop is None or (stop.status is Status.GAVE_UP and not stop.limit))):
            base, self.partial = self.partial, None
            others, self.partials = [o for o in self.partials[1:] if set(base.still) - set(o.still)], []
            bases.append(base)
            yield self.event("note", "search", message=f"building on candidate {base.number}, a fix of some failing "
                             f"targets: looking for a fix of {', '.join(base.still[:3])} on top of it")
            stop = yield from self.search_round(on_partial(ctx, base.patch, base.still), [
                Merged(base.patch, [o.patch for o in others]), *(OnTop(p, base.patch) for p in proposers)])
        self.durations["candidates"] = self.ports.now() - t0
        best = self.partial or (bases[-1] if bases else None)
        if self.winner is None and best is not None and not self.ports.cancelled():
            self.partial = best  # no fix of every failing test: the fix of some is offered
            self.plausible, self.numbers[best.patch.key()], self.winner = [best.patch], best.number, best.patch
        return stop

    def search_round(self, ctx: ProposalContext, proposers: list[Proposer]) -> Generator[Event, None, End | None]:
        """The offline proposers share one time limit (`search_factor`); once it is spent only a model may go on."""
        stop: End | None = None
        offline_spent: End | None = None
        for proposer in proposers:
            if offline_spent is not None and not proposer.adaptive:
                continue
            stop = yield from self.try_proposer(proposer, ctx)
            yield from self.notes(proposer)
            if stop is not None and stop.limit == "search_factor":
                offline_spent, stop = stop, None
                continue
            if not stop and not self.winner:
                stop = limit_reached(self.task, self, self.ports)  # a proposer out of budget ends the run here
            if stop or self.winner:
                break
        return stop or (offline_spent if self.winner is None else None)

    def try_proposer(self, proposer: Proposer, ctx: ProposalContext) -> Generator[Event, None, End | None]:
        self.last_signatures.clear()
        screened = (lambda p: screened_on(self.ports.runner, p, self.plan))  # the tests a candidate is screened on
        for patch, early_verdict in checked_ahead(proposer, ctx, self.ports, screened, self.worth_screening):
            yield from self.notes(proposer)
            stop = limit_reached(self.task, self, self.ports) or self.search_time_up(proposer)
            if stop:
                return stop
            if self.winner is not None:
                # Overfitting guard: look a little further for a smaller patch that also passes everything,
                # for a few candidates and about one baseline's time (each one may need the whole suite).
                self.lookahead += 1
                looked = self.ports.now() - self.fixed_at
                if self.lookahead > self.task.limits.plausible_lookahead or looked > max(2.0, self.durations["baseline"]):
                    return None
                if preference(patch) >= preference(self.winner):
                    continue
            if patch.key() in self.seen:
                continue
            self.seen.add(patch.key())
            attempt = yield from self.evaluate(proposer, patch, early_verdict, ctx)
            if attempt.status == "plausible" and proposer.adaptive:
                return None  # never ask a model for more after a fix: that costs tokens
            if attempt.status == "failed" and proposer.adaptive:
                stop = yield from self.breaker(attempt)
                if stop:
                    return stop
        return None

    def search_time_up(self, proposer: Proposer) -> End | None:
        """The offline search's own time limit: never after a fix (the overfitting guard's few candidates),
        never for a model, which has its own budgets. After a fix of some failing tests, a fix of all of them is
        looked for a little longer (`Partial.waited`)."""
        if self.winner is not None:
            return None
        if self.partial is not None and self.partial.waited(self.ports.now(), self.durations["baseline"]):
            return End(Status.GAVE_UP, "no fix of every failing test followed the fix of some")
        if proposer.adaptive:
            return None
        since = self.bases[-1].at - self.started if self.bases else 0.0
        hit = limits.search_time_up(self.task.limits, self.durations.get("baseline", 0.0),
                                    self.ports.now() - self.started, self.candidates, since)
        return End(Status.LIMITS, hit[1], limit=hit[0]) if hit else None

    def worth_screening(self, patch: Patch) -> bool:
        """What the loop would still test: after a fix only a smaller one (the overfitting guard), never twice."""
        return patch.key() not in self.seen and (self.winner is None or preference(patch) < preference(self.winner))

    def evaluate(self, proposer: Proposer, patch: Patch, early_verdict: Verdict | None,
                 ctx: ProposalContext) -> Generator[Event, None, Attempt]:
        """One candidate: the integrity guard, the safety check, its tests, and a reflection when it fails."""
        ports = self.ports
        self.candidates += 1
        self.iterations += 1 if proposer.adaptive else 0
        index = self.candidates
        yield self.event("candidate", "propose", index, proposer=proposer.name, operator=patch.operator,
                         summary=patch.summary, diff=unified_diff(patch), iteration=self.iterations,
                         tokens=usage(ports).tokens, where=changed_at(patch), limit=self.task.limits.max_candidates)
        rejected = rejection(patch, index, ports.is_test_file)
        if rejected is not None:
            ctx.attempts.append(rejected)
            yield self.event("checked", "check", index, ok=False, reason=rejected.note)
            return rejected
        if ports.safety is not None:
            verdict = early_verdict or ports.safety.check(patch)
            yield self.event("checked", "check", index, ok=verdict.ok, reason=verdict.reason,
                             findings=[f"{f.code} {f.path}:{f.line} {f.message}" for f in verdict.findings])
            if not verdict.ok:
                attempt = Attempt(index, patch, "unsafe", verdict=verdict, note=verdict.reason)
                ctx.attempts.append(attempt)
                return attempt
        attempt = yield from self.test(patch, index)
        assert attempt.report is not None
        yield self.event("tested", "run", index, status=attempt.status, iteration=self.iterations,
                         tokens=usage(ports).tokens, proposer=proposer.name, operator=patch.operator,
                         candidate_seconds=round(attempt.duration, 3), runs=self.selections,
                         **_counts(attempt.report))
        still = still_failing(attempt.report, self.targets) if attempt.status == "partial" else ()
        if still and (not self.bases or len(still) < len(self.bases[-1].still)):  # kept while a whole fix is sought
            self.partials.append(Partial(patch, index, still, ports.now()))
            self.partial = self.partial or self.partials[0]
        attempt = replace(attempt, status="failed") if attempt.status == "partial" else attempt
        if attempt.status == "plausible":
            self.plausible.append(patch)
            self.numbers[patch.key()] = index
            self.fixed_at = self.fixed_at or self.ports.now()
            self.winner = min(self.plausible, key=preference)
            self.learn(attempt, ctx)
            return attempt
        attempt = replace(attempt, reflection=reflect(proposer, attempt, ctx, self.targets))
        self.learn(attempt, ctx)
        assert attempt.reflection is not None
        yield self.event("reflected", "reflect", index, signature=attempt.reflection.signature,
                         hypothesis=attempt.reflection.root_cause)
        return attempt

    def learn(self, attempt: Attempt, ctx: ProposalContext) -> None:
        ctx.attempts.append(attempt)
        if self.ports.memory is not None:
            self.ports.memory.record_attempt(self.run_id, attempt, ctx)

    def test(self, patch: Patch, index: int) -> Generator[Event, None, Attempt]:
        """The failing tests first, then (a long suite) the tests that run the change, then the whole selection;
        the whole selection may take long, so its start is said (`confirming`)."""
        t0 = self.ports.now()
        judging = judge(self.ports.runner, patch, self.plan)
        try:
            while True:
                yield self.event(next(judging), "confirm", index)
        except StopIteration as done:
            status, report, self.selections = done.value
        self.test_runs += len(self.selections)
        return Attempt(index, patch, status, report=report, duration=self.ports.now() - t0)

    def breaker(self, attempt: Attempt) -> Generator[Event, None, End | None]:
        """An adaptive proposer that meets the same failure `breaker_repeats` times in a row is stopped."""
        assert attempt.reflection is not None
        repeats = self.task.limits.breaker_repeats
        self.last_signatures.append(attempt.reflection.signature)
        tail = self.last_signatures[-repeats:]
        if len(tail) < repeats or len(set(tail)) != 1:
            return None
        message = (f"the same failure came back {repeats} times in a row "
                   f"({attempt.reflection.signature[:160]}); stopping instead of repeating it")
        yield self.event("breaker", "reflect", attempt.index, message=message)
        return End(Status.GAVE_UP, message, limit="breaker_repeats")

    def notes(self, proposer: Proposer) -> Iterator[Event]:
        """A proposer's messages, shown once each (e.g. "no API key"), and its model calls since the last time."""
        if isinstance(proposer, CallLogging):
            for call in proposer.drain_calls():
                yield self.event("model_call", "propose", proposer=proposer.name, **call_fields(call))
        yield from said(proposer, lambda note: self.event("note", "propose", proposer=proposer.name, message=note))
        yield from said(self.ports.runner, lambda note: self.event("note", "run", message=note))  # e.g. no warm worker

    # ---- 8. review ----------------------------------------------------------------------------
    def reviewed(self, ctx: ProposalContext, stop: End | None) -> Generator[Event, None, End | None]:
        """Before the fix is offered: the reviewer accepts it, prefers another plausible one, or rejects it;
        then the next plausible fix is reviewed, or (none left) the search goes on, REVIEWS times at most."""
        reviewer = self.ports.reviewer
        while reviewer is not None and self.winner is not None:
            number = self.numbers[self.winner.key()]
            review = reviewer.review((number, self.winner), [(self.numbers[p.key()], p) for p in self.plausible], ctx)
            yield self.event("reviewed", "review", number, verdict=review.verdict, reason=review.reason,
                             by=review.by, prefer=review.prefer)
            self.winner = next((p for p in self.plausible if review.verdict == PREFER
                                and self.numbers[p.key()] == review.prefer), self.winner)
            if review.verdict != REJECT:  # the fix offered carries the word on it, for the memory
                self.winner = replace(self.winner, meta={**self.winner.meta, "review": f"{review.verdict} ({review.by})"})
                return stop
            self.rejected.append(f"candidate {number}: {review.reason}")
            self.plausible.remove(self.winner)
            self.winner = min(self.plausible, key=preference) if self.plausible and len(self.rejected) < REVIEWS else None
            if self.winner is None and len(self.rejected) < REVIEWS and not self.ports.cancelled():
                self.lookahead, self.fixed_at = 0, 0.0
                stop = yield from self.search(ctx)  # every candidate tested so far stays out (`seen`)
        return stop

    # ---- the end -----------------------------------------------------------------------------
    def verdict(self, stop: End | None, note: str) -> End:
        """How the candidates ended: the smallest plausible fix, a limit, or giving up (and why)."""
        baseline = self.baseline
        assert baseline is not None
        if self.winner is not None:
            w = self.winner
            still = self.partial.still if self.partial is not None and self.partial.patch.key() == w.key() else ()
            return End(Status.FIXED, f"fixed by {w.proposer}/{w.operator}: {w.summary}" + in_part(still, self.targets),
                        patch=w, still_failing=still)
        if self.rejected:
            return End(Status.GAVE_UP, f"the reviewer rejected every fix found ({'; '.join(self.rejected)})"
                        + (f"; then {stop.message}" if stop is not None else ""), limit=stop.limit if stop else "")
        if stop is not None:
            return stop
        if baseline.collection_errors:
            return End(Status.GAVE_UP, "the tests could not be collected and no candidate fixed it "
                        f"({self.candidates} tried): {describe_collection_error(baseline.collection_errors[0])}")
        return End(Status.GAVE_UP, f"no candidate made the failing tests pass ({self.candidates} tried)"
                    + (f"; {note}" if note else ""))

    def finish(self, end: End, ctx: ProposalContext | None = None) -> Generator[Event, None, Outcome]:
        """The one way out: the outcome, told to memory, then the "finished" event (with the diff once
        candidates were tried)."""
        self.durations["total"] = self.ports.now() - self.started
        outcome = Outcome(
            status=end.status, run_id=self.run_id, message=end.message, patch=end.patch,
            attempts=tuple(ctx.attempts) if ctx else (), baseline=self.baseline if end.keep_baseline else None,
            iterations=self.iterations, candidates_evaluated=self.candidates, test_runs=self.test_runs,
            plausible=len(self.plausible), usage=usage(self.ports), durations=dict(self.durations), flaky=end.flaky,
            stopped_by=end.limit, still_failing=end.still_failing)
        if self.ports.memory is not None:
            self.ports.memory.record_outcome(outcome, ctx)
        data: dict[str, object] = {"status": outcome.status.value, "message": outcome.message}
        data |= ({"flaky": list(end.flaky)} if end.flaky else {}) | (
            {"diff": unified_diff(outcome.patch) if outcome.patch else ""} if ctx is not None else {})
        for proposer in self.ports.proposers:  # the last model calls (the reviewer's, on the coder's log)
            yield from self.notes(proposer)
        yield self.event("finished", "done", **data)
        return outcome


def drive(gen: Run, on_event=lambda e: None) -> Outcome:  # type: ignore[no-untyped-def]
    """Run a loop generator to the end, handing each event to `on_event`."""
    while True:
        try:
            on_event(next(gen))
        except StopIteration as stop:
            return stop.value

"""TestRunner: real pytest, under the project's own interpreter, inside the sandbox, on a scratch copy.

The runner only decides which way each run goes; the work is done by `prepare` (interpreter, copy,
runtime files), `cold` (a normal sandboxed pytest process), `screening` (warm workers, read-ahead) and
`test_clock` (how long a test may run).

The first unpatched run is the baseline, untraced (recording every test's lines costs two to three times
the suite), and the warm workers start while it runs. The localizer's spectrum is a second, smaller run
under coverage (`coverage`), on a warm worker when one is up: the failing tests and the passing tests beside
them; what it recorded also says which tests run a candidate's change on a long suite (`covering`).

Time limits come from the project's own timings: the baseline has no cap but the run's wall time (or the
user's `baseline_timeout`), and says so when it is cut; every later run may take three times the baseline
and a minute (or the user's `test_timeout`); each test's limit is learned from its own time (`test_clock`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Mapping, Sequence

from fixloop.core.model import Limits, Patch, TestReport, TestResult
from fixloop.core.ports import Calls
from fixloop.adapters.sandbox.api import Policy, Sandbox
from fixloop.adapters.runner.behaviour import parse_values, probed
from fixloop.adapters.runner.baseline import Place, cut_problem, rejudged, settle
from fixloop.adapters.runner.canary import CANARY_PATH, SOURCE, canary_problem, is_canary, without_failure_path
from fixloop.adapters.runner.cold import ColdRunner
from fixloop.adapters.runner.covering import apart, covering
from fixloop.adapters.runner.declared import Offer, install_offer, only_imports_fail
from fixloop.adapters.runner.halves import duplicated, halves, lost, merged
from fixloop.adapters.runner.listing import CopyRule
from fixloop.adapters.runner.missing import explain
from fixloop.adapters.runner.prepare import Prepared, coverage_policy, prepare, warm_policy
from fixloop.adapters.runner.report import parse_coverage
from fixloop.adapters.runner.screening import Screening
from fixloop.adapters.runner.test_clock import TestClock
from fixloop.adapters.runner.warm import Recorded, WarmPool

Spectra = dict[str, dict[str, frozenset[int]]]
RUN_FACTOR, RUN_MARGIN = 3.0, 60.0  # a run after the baseline may take 3x its time and a minute
MIN_RUN = 30.0  # what a run may still take when the run's wall time is (nearly) spent
CANARY_SECONDS = 30.0  # nine small tests: pytest's start-up and a little more
VALUE_TESTS = 200  # passing tests whose values the offline reviewer compares, at most


class PytestRunner:
    """`run(patch, select, fail_fast)`: a screening run (a patch, fail_fast) goes to a warm worker when
    one is up; every other run, including the full-suite confirmation of a fix, is a normal sandboxed
    pytest process."""

    def __init__(self, prepared: Prepared, sandbox: Sandbox, limits: Limits = Limits(),
                 pytest_args: Sequence[str] = (), warm_workers: int = 2, candidate_memory_mb: int = 2048) -> None:
        self.prepared = prepared
        self.sandbox = sandbox
        self.limits = limits
        self.scratch = prepared.scratch
        self.interpreter = prepared.interpreter
        self.python = self.interpreter.path
        self.pytest_args = tuple(pytest_args)
        self.warm_workers = warm_workers
        self.clock = TestClock(limits.per_test_timeout, limits.hang_probe_seconds, limits.screening_floor,
                               limits.screening_factor)
        self._spectra: dict[tuple[str, ...], tuple[TestReport, Spectra]] = {}  # unpatched runs with coverage
        self._covered: Spectra = {}  # the whole selection's per-test lines: which tests run a change
        self.harness: frozenset[str] = frozenset()  # project files pytest itself imports (the baseline says)
        self._canaries: dict[tuple[tuple[str, str], ...], str] = {}  # candidate -> what its canary run found
        self._unpatched_runs = 0
        self._baseline_select: tuple[str, ...] = ()
        self._opened = time.monotonic()  # the run's wall time counts from here
        self._baseline_seconds = 0.0  # the baseline's time, tests judged again included
        self.notes: list[str] = []  # what the run should say once (the loop shows each as a note)
        self._cold_noted = False
        self.install_offer: Offer | None = None  # a missing package that is all that fails, when the baseline says
        self.passed_before: frozenset[str] = frozenset()  # the baseline's passing tests
        self._halves: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # the suite's files, in two (halves.py)
        self._original_values: dict[tuple[tuple[str, ...], str], Calls | None] = {}
        self.cold = ColdRunner(self.scratch, sandbox, self.python, limits, self.pytest_args)
        self.screening = Screening(self.scratch, sandbox, self.python, warm_policy(prepared.policy, prepared),
                                   warm_workers, limits.wall_seconds + 60, self.clock.screening, self.run_cap,
                                   self.pytest_args, candidate_memory_mb)
        self._policy = prepared.policy
        self.killed = 0  # screening runs that hung or hit a limit

    @classmethod
    def open(cls, workspace: Path, sandbox: Sandbox, limits: Limits = Limits(), python: str = "",
             overlays: Mapping[str, str] | None = None, pytest_args: Sequence[str] = (), warm_workers: int = 2,
             candidate_memory_mb: int = 2048, copy_rule: CopyRule = CopyRule()) -> "PytestRunner":
        """Probe the interpreter and copy the workspace, then a runner over that copy."""
        return cls(prepare(workspace, sandbox, python, overlays, copy_rule), sandbox, limits, pytest_args,
                   warm_workers, candidate_memory_mb)

    @property
    def policy(self) -> Policy:
        return self._policy

    @policy.setter
    def policy(self, policy: Policy) -> None:
        self._policy = policy
        self.screening.policy = warm_policy(policy, self.prepared)

    @property
    def root(self) -> Path:
        return self.scratch.root

    @property
    def runs(self) -> int:
        return self.cold.runs

    @property
    def pool(self) -> WarmPool | None:
        return self.screening.pool

    @property
    def warm_problem(self) -> str:
        return self.screening.problem

    def sources(self) -> dict[str, str]:
        return self.scratch.sources()

    def screening_timeout(self) -> float:
        """Per-test limit of a candidate's test that has no time of its own: ten times what the unpatched
        tests needed (at least 1 s), so a candidate that hangs costs little."""
        return self.clock.learned()

    def run_cap(self) -> float:
        """What one pytest run after the baseline may take: `test_timeout` when set, else three times the
        baseline and a minute; never much past what is left of the run's wall time."""
        cap = self.limits.test_timeout or RUN_FACTOR * self._baseline_seconds + RUN_MARGIN
        return min(cap, max(self._left(), MIN_RUN))

    def _left(self) -> float:
        return self.limits.wall_seconds - (time.monotonic() - self._opened)

    def covering(self, patch: Patch) -> frozenset[str] | None:
        """The tests whose recorded lines enter a function `patch` changes; None when that is unknown."""
        return covering(self._covered, patch) if self._covered else None

    def apart(self, patch: Patch, tests: Sequence[str]) -> frozenset[str]:
        """Those of `tests` whose recorded lines enter no function `patch` changes (their outcome stays)."""
        return apart(self._covered, patch, tests)

    def lines_of(self, test: str) -> frozenset[tuple[str, int]] | None:
        files = self._covered.get(test)
        return None if files is None else frozenset((path, n) for path, lines in files.items() for n in lines)

    def lanes(self) -> int:
        return self.screening.lanes()

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        """Start screening a checked candidate on a spare worker; `run` picks the result up."""
        self.screening.prefetch(patch, select)

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        report = self._run(patch, select, fail_fast)
        if patch is None or not self.harness.intersection(patch.paths) or not report.ok:
            return report
        # A pass that pytest reported through the candidate's own code: believed once the canary agrees (asked
        # once a candidate: its screening, covering and confirming runs share the answer).
        key = patch.key()
        if key not in self._canaries:
            canary = self.cold.canary(patch, self.clock.limits(False), self.policy, min(self.run_cap(), CANARY_SECONDS))
            self._canaries[key] = canary_problem(canary)
        problem = self._canaries[key]
        return dataclasses.replace(report, problem=problem) if problem else report

    def run_pair(self, patch: Patch, select: Sequence[str]) -> tuple[TestReport, TestReport]:
        """(`select` without `patch`, `select` with it), not fail-fast, run at the same time: two sandboxed
        processes, each on its own copy (the whole suite that confirms a fix of a narrowed run)."""
        with ThreadPoolExecutor(2, thread_name_prefix="fixloop-pair") as pool:
            before = pool.submit(self.run, None, select, False)
            after = pool.submit(self.run, patch, select, False)
            return before.result(), after.result()

    def _run(self, patch: Patch | None, select: Sequence[str], fail_fast: bool) -> TestReport:
        screening = patch is not None and fail_fast
        if screening:
            select = self.clock.order(select)
        if screening and self.warm_workers > 0:
            report = self.screening.screen(patch, select)  # type: ignore[arg-type]
            if report is not None:
                self.killed += 1 if _stopped(report) else 0
                return report
            if self.screening.problem and not self._cold_noted:
                self._cold_noted = True  # said once: each candidate after it is a whole pytest start, slower
                self.notes.append(f"a candidate ran without the warm worker ({self.screening.problem[:300]})")
        if patch is None:
            return self._unpatched(select, fail_fast)
        if not screening and not select and self._halves is not None:
            return self._in_halves(patch)
        screen = self.clock.screening(select) if screening else None
        report = self.cold.run(patch, select, fail_fast, screen.default if screen else self.clock.limits(False),
                               self.policy, cap=self.run_cap(), per_test_limits=screen.per_test if screen else None)
        if screening and _stopped(report):
            self.killed += 1
        if screening and self.screening.problem and report.results and not report.problem:
            self.screening.retire()  # what failed warm ran cold: every later candidate would fail there too
        return report

    def _unpatched(self, select: Sequence[str], fail_fast: bool) -> TestReport:
        """The code as it is. The first such run is the baseline: the workers start beside it (a failure
        needs them soon)."""
        first = self._unpatched_runs == 0
        self._unpatched_runs += 1
        report: TestReport | None = None
        if first:
            self.screening.start_in_background()
            self._baseline_select = tuple(select)
            report = self._baseline(select, fail_fast)
        elif self.warm_workers > 0 and select and tuple(select) != self._baseline_select:
            # A few tests again (the flakiness check): a warm worker is enough, since a pass there decides
            # nothing alone; the baseline's own selection always runs cold.
            report = self.screening.rerun(select, self.clock.limits(False))
        if report is None:
            report = self.cold.run(None, select, fail_fast, self.clock.limits(False), self.policy, cap=self.run_cap())
        self.clock.observe(report)
        if first:
            self.passed_before = frozenset(r.nodeid for r in report.passed)
            self._halves = halves(report) if not select and len(os.sched_getaffinity(0)) > 1 else None
        if first and not report.ok and not report.problem:
            self.screening.widen()  # a failure to fix: the search will want every lane
        if first and report.harness:
            self.harness = frozenset(report.harness)
            self.notes.append(f"pytest itself imports {len(report.harness)} file(s) of this project "
                              f"({', '.join(report.harness[:3])}{', ...' if len(report.harness) > 3 else ''}): a "
                              "candidate that changes them passes only if pytest still reports its canary tests "
                              "right")
        if first and not report.problem:
            # An import that fails only because the copy left a file of the workspace out is no bug to fix.
            left_out = explain(self.scratch.workspace, self.scratch.listing, report)
            report = dataclasses.replace(report, problem=left_out) if left_out else report
        if first and not report.problem:
            # A package the interpreter lacks is no bug to fix either, when it is all that fails.
            offer = install_offer(self.scratch.workspace, self.python, report)
            if offer is not None and only_imports_fail(report):
                self.install_offer = offer  # yours to accept: `fixloop fix --allow-install`
                report = dataclasses.replace(report, problem=offer.advice())
            elif offer is not None:
                self.notes.append(offer.advice())
        return report

    def _in_halves(self, patch: Patch) -> TestReport:
        """The whole suite with `patch` as two processes at once, each on its own copy (halves.py); in one
        process when a test that passed before does not pass there, and from then on when one process
        passes what the two failed."""
        assert self._halves is not None
        limits, cap = self.clock.limits(False), self.run_cap()
        with ThreadPoolExecutor(2, thread_name_prefix="fixloop-half") as pool:
            first, second = pool.map(lambda files: self.cold.run(patch, files, False, limits, self.policy, cap=cap),
                                     self._halves)
        report = merged(first, second)
        if duplicated(report.results):
            self._halves = None  # the project's own arguments name paths: each half ran all of them
        doubt = lost(report, self.passed_before)
        if not doubt or report.problem:
            return report
        whole = self.cold.run(patch, (), False, limits, self.policy, cap=cap)
        apart = sorted(set(doubt) - set(lost(whole, self.passed_before)))
        if apart and self._halves is not None:
            self._halves = None
            self.notes.append(f"{apart[0]} passes when the whole suite runs in one process, not in half of it: "
                              "the suite runs in one process from now on")
        return whole

    def _baseline(self, select: Sequence[str], fail_fast: bool) -> TestReport:
        """The first run has no cap but the user's or the run's wall time, stops the run when cut, and judges
        again the tests that hit a limit before anything was known of them."""
        cap, setting = self._baseline_cap()
        started = time.monotonic()
        report = self.cold.run(None, select, fail_fast, self.clock.limits(False), self.policy, cap=cap)
        if not self.cold.cut and self.clock.ceiling > 0 and not report.problem and any(r.hung for r in report.results):
            report = self._rejudge(report, lambda: max(1.0, cap - (time.monotonic() - started)))
        if self.cold.cut:
            collected, finished = self.cold.progress
            problem = cut_problem(setting, cap, time.monotonic() - started, collected, finished,
                                  self.limits.wall_seconds)
            return TestReport(report.results, report.collection_errors, report.returncode, report.duration,
                              True, report.output_tail, problem, report.cpu_seconds, report.peak_mb)
        self._baseline_seconds = report.duration
        return report

    def _rejudge(self, baseline: TestReport, left: Callable[[], float]) -> TestReport:
        """The baseline's hung tests run again, untraced, with the user's per-test limit until each has a
        verdict (`settle`); a run cut at the baseline's cap leaves `cold.cut` set for the caller."""
        pending = [r.nodeid for r in baseline.results if r.hung]
        verdicts: dict[str, TestResult] = {}
        runs: list[TestReport] = []
        stuck: set[Place] = set()
        while pending:
            again = self.cold.run(None, pending, False, self.clock.rejudging(), self.policy, cap=left())
            if self.cold.cut:
                return baseline
            runs.append(again)
            settled, pending = settle(again, pending, stuck)
            if not settled:
                break  # a run that judged nothing (it could not start, say): the rest keep the baseline's verdict
            verdicts.update(settled)
        report, notes = rejudged(baseline, verdicts, runs, self.clock.ceiling)
        self.notes.extend(notes)
        return report

    def _baseline_cap(self) -> tuple[float, str]:
        """(seconds, the setting that gives them): the user's baseline_timeout, else the run's wall time."""
        left = max(1.0, self._left())
        if 0 < self.limits.baseline_timeout <= left:
            return self.limits.baseline_timeout, "baseline_timeout"
        return left, "wall_seconds"

    def coverage(self, select: Sequence[str] = (), tool: str = "coverage") -> tuple[TestReport, Spectra]:
        """One run of `select` that also records which project lines each test executed (`tool="settrace"`
        skips coverage.py and traces lines in the plugin), made once per selection. What it recorded also
        says which tests run a candidate's change (`covering`)."""
        if tool == "coverage" and tuple(select) in self._spectra:
            return self._spectra[tuple(select)]
        report, spectra = self._coverage_run(select, tool)
        if spectra:
            self._covered = {**self._covered, **spectra}
            if tool == "coverage":
                self._spectra[tuple(select)] = (report, spectra)
        return report, spectra

    def _coverage_run(self, select: Sequence[str], tool: str, cap: float = 0.0) -> tuple[TestReport, Spectra]:
        lines: list[str] = []
        # A test known to hang still shows the lines it loops over in a short limit: never the full wait.
        limits = self.clock.limits(bool(self.clock.hung), traced=True)
        # When pytest runs the project's own files, the canary shows which of their lines pytest runs only
        # because a test failed: no evidence against them, whatever the bug (`without_failure_path`).
        canary = bool(self.harness) and bool(select)
        if tool == "coverage" and not canary and self.warm_workers > 0:
            warm = self._warm_coverage(select, limits)
            if warm is not None:
                return warm
        report = self.cold.run(None, [*select, CANARY_PATH] if canary else select, False, limits,
                               coverage_policy(self.policy, self.prepared, tool), lines, cap=cap or self.run_cap(),
                               extra={CANARY_PATH: SOURCE.encode("utf-8")} if canary else None)
        if not canary:
            return report, parse_coverage(lines)
        report = dataclasses.replace(report, results=tuple(r for r in report.results if not is_canary(r.nodeid)))
        return report, without_failure_path(parse_coverage(lines))

    def _warm_coverage(self, select: Sequence[str], limits: tuple[float, float]) -> tuple[TestReport, Spectra] | None:
        """The spectrum on a warm worker, which has pytest, its plugins and the libraries loaded already (a
        cold traced run starts all of them again: as long as the baseline on a suite of a few seconds); None
        when no worker ran it, or it recorded nothing (then the run goes cold)."""
        cov = self.scratch.runtime / "cov"
        traced = Recorded({"FIXLOOP_COVERAGE": "1"}, str(cov) if self.prepared.coverage_package is not None else "")
        report = self.screening.rerun_halves(select, limits, traced)
        spectra = parse_coverage(traced.lines) if report is not None else {}
        return (report, spectra) if report is not None and spectra else None

    def values(self, patch: Patch | None, of: Patch) -> Calls | None:
        """What the functions `of` changes return in the passing tests that run them (the spectrum says which;
        at most VALUE_TESTS), with `patch` applied (None: the code as it is), on a warm worker when one is up;
        None when that cannot be known. For the offline reviewer; the code as it is runs once per question."""
        functions = probed(of)
        tests = sorted(t for t in self.covering(of) or () if t in self.passed_before)[:VALUE_TESTS]
        if not functions or not tests:
            return None
        key = (tuple(tests), json.dumps(functions, sort_keys=True))
        if patch is None and key in self._original_values:
            return self._original_values[key]
        recorded = Recorded({"FIXLOOP_VALUES": key[1]})
        limits = self.clock.limits(False)
        report = self.screening.rerun(tests, limits, recorded, patch) if self.warm_workers > 0 else None
        if report is None:
            recorded.lines.clear()
            policy = dataclasses.replace(self.policy, env={**self.policy.env, **recorded.env})
            report = self.cold.run(patch, tests, False, limits, policy, recorded.lines, cap=self.run_cap())
        calls = parse_values(recorded.lines) if report.ok and not report.problem else None
        if patch is None:
            self._original_values[key] = calls
        return calls

    def cancel(self) -> None:
        self.sandbox.kill_all()

    def close(self) -> None:
        self.screening.close()
        self.scratch.close()


def _stopped(report: TestReport) -> bool:
    """The run was killed, or a test in it hit its time limit."""
    return report.timed_out or any(r.hung for r in report.results)

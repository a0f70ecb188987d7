"""TestRunner: real pytest, under the project's own interpreter, inside the sandbox, on a scratch copy.

The runner only decides which way each run goes; the work is done by `prepare` (interpreter, copy,
runtime files), `cold` (a normal sandboxed pytest process), `screening` (warm workers, read-ahead) and
`test_clock` (how long a test may run).

The first unpatched run also records which lines each test executed (the localizer's spectrum, kept for
`coverage`), and the warm workers start while it runs: a failure to fix needs both, and a passing suite
only pays for the coverage tracer.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Mapping, Sequence

from ..core.model import Limits, Patch, TestReport
from ..sandbox.api import Policy, Sandbox
from .cold import ColdRunner
from .listing import CopyRule
from .missing import explain
from .prepare import Prepared, coverage_policy, prepare
from .report import parse_coverage
from .screening import Screening
from .test_clock import TestClock
from .warm import WarmPool

Spectra = dict[str, dict[str, frozenset[int]]]


class PytestRunner:
    """`run(patch, select, fail_fast)`: a screening run (a patch, fail_fast) goes to a warm worker when
    one is up; every other run, including the full-suite confirmation of a fix, is a normal sandboxed
    pytest process."""

    def __init__(self, prepared: Prepared, sandbox: Sandbox, limits: Limits = Limits(),
                 pytest_args: Sequence[str] = (), warm_workers: int = 2, candidate_memory_mb: int = 2048,
                 spectrum_in_baseline: bool = True) -> None:
        self.prepared = prepared
        self.sandbox = sandbox
        self.limits = limits
        self.scratch = prepared.scratch
        self.interpreter = prepared.interpreter
        self.python = self.interpreter.path
        self.pytest_args = tuple(pytest_args)
        self.warm_workers = warm_workers
        self.clock = TestClock(limits.per_test_timeout, limits.hang_probe_seconds)
        self.spectrum_in_baseline = spectrum_in_baseline
        self._spectra: dict[tuple[str, ...], tuple[TestReport, Spectra]] = {}  # unpatched runs with coverage
        self._unpatched_runs = 0
        self._baseline_select: tuple[str, ...] = ()
        self.cold = ColdRunner(self.scratch, sandbox, self.python, limits, self.pytest_args)
        self.screening = Screening(self.scratch, sandbox, self.python, prepared.policy, warm_workers,
                                   limits.wall_seconds + 60, lambda: self.clock.limits(True), self.pytest_args,
                                   candidate_memory_mb)
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
        self._policy = self.screening.policy = policy

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
        """Per-test limit of a candidate: ten times what the unpatched tests needed (at least 1 s),
        so a candidate that hangs costs little."""
        return self.clock.learned()

    def lanes(self) -> int:
        return self.screening.lanes()

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        """Start screening a checked candidate on a spare worker; `run` picks the result up."""
        self.screening.prefetch(patch, select)

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        screening = patch is not None and fail_fast
        if screening:
            select = self.clock.order(select)
        if screening and self.warm_workers > 0:
            report = self.screening.screen(patch, select)  # type: ignore[arg-type]
            if report is not None:
                self.killed += 1 if _stopped(report) else 0
                return report
        if patch is None:
            return self._unpatched(select, fail_fast)
        report = self.cold.run(patch, select, fail_fast, self.clock.limits(screening), self.policy)
        if screening and _stopped(report):
            self.killed += 1
        return report

    def _unpatched(self, select: Sequence[str], fail_fast: bool) -> TestReport:
        """The code as it is. The first such run is the baseline: the workers start beside it (a failure
        needs them soon) and it records the spectrum, unless its report outgrew the cap that way."""
        first = self._unpatched_runs == 0
        self._unpatched_runs += 1
        if first:
            self.screening.start_in_background()
            self._baseline_select = tuple(select)
        report: TestReport | None = None
        if not first and self.warm_workers > 0 and select and tuple(select) != self._baseline_select:
            # A few tests again (the flakiness check): a warm worker is enough, since a pass there decides
            # nothing alone; the baseline's own selection always runs cold.
            report = self.screening.rerun(select, self.clock.limits(False))
        if first and self.spectrum_in_baseline and not fail_fast:
            report, spectra = self._coverage_run(select, "coverage")
            if self.cold.overflowed:
                report = None  # the per-test lines made the report too big: run it plainly
            else:
                self._spectra[tuple(select)] = (report, spectra)
        if report is None:
            report = self.cold.run(None, select, fail_fast, self.clock.limits(False), self.policy)
        self.clock.observe(report)
        if first and not report.problem:
            # An import that fails only because the copy left a file of the workspace out is no bug to fix.
            left_out = explain(self.scratch.workspace, self.scratch.listing, report)
            report = dataclasses.replace(report, problem=left_out) if left_out else report
        return report

    def coverage(self, select: Sequence[str] = (), tool: str = "coverage") -> tuple[TestReport, Spectra]:
        """One suite run that also records which project lines each test executed (`tool="settrace"` skips
        coverage.py and traces lines in the plugin). The baseline's own record is reused when it covered
        the same selection: then the report returned is the baseline's, and no test ran again."""
        if tool == "coverage" and tuple(select) in self._spectra:
            return self._spectra[tuple(select)]
        return self._coverage_run(select, tool)

    def _coverage_run(self, select: Sequence[str], tool: str) -> tuple[TestReport, Spectra]:
        lines: list[str] = []
        # A test known to hang still shows the lines it loops over in a short limit: never the full wait.
        limits = self.clock.limits(bool(self.clock.hung), traced=True)
        report = self.cold.run(None, select, False, limits, coverage_policy(self.policy, self.prepared, tool), lines)
        return report, parse_coverage(lines)

    def cancel(self) -> None:
        self.sandbox.kill_all()

    def close(self) -> None:
        self.screening.close()
        self.scratch.close()


def _stopped(report: TestReport) -> bool:
    """The run was killed, or a test in it hit its time limit."""
    return report.timed_out or any(r.hung for r in report.results)

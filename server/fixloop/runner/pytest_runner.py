"""TestRunner: real pytest, under the project's own interpreter, inside the sandbox, on a scratch copy.

The runner only decides which way each run goes; the work is done by `prepare` (interpreter, copy,
runtime files), `cold` (a normal sandboxed pytest process) and `screening` (warm workers, read-ahead).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ..core.model import Limits, Patch, TestReport
from ..sandbox.api import Policy, Sandbox
from .cold import ColdRunner
from .prepare import Prepared, coverage_policy, prepare
from .report import parse_coverage
from .screening import Screening


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
        self.cold = ColdRunner(self.scratch, sandbox, self.python, limits, self.pytest_args)
        self.screening = Screening(self.scratch, sandbox, self.python, prepared.policy, warm_workers,
                                   limits.wall_seconds + 60, self.screening_timeout, self.pytest_args,
                                   candidate_memory_mb)
        self._policy = prepared.policy
        self.killed = 0  # screening runs that hung or hit a limit
        self._suite_seconds = 0.0  # pytest-measured time of the last unpatched run

    @classmethod
    def open(cls, workspace: Path, sandbox: Sandbox, limits: Limits = Limits(), python: str = "",
             overlays: Mapping[str, str] | None = None, pytest_args: Sequence[str] = (), warm_workers: int = 2,
             candidate_memory_mb: int = 2048) -> "PytestRunner":
        """Probe the interpreter and copy the workspace, then a runner over that copy."""
        return cls(prepare(workspace, sandbox, python, overlays), sandbox, limits, pytest_args, warm_workers,
                   candidate_memory_mb)

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
    def pool(self) -> object:
        return self.screening.pool

    @property
    def warm_problem(self) -> str:
        return self.screening.problem

    def sources(self) -> dict[str, str]:
        return self.scratch.sources()

    def screening_timeout(self) -> float:
        """Per-test limit of a candidate: ten times what the unpatched tests needed (at least 1 s),
        so a candidate that hangs costs little."""
        return min(self.limits.per_test_timeout, max(1.0, 10.0 * self._suite_seconds + 0.5))

    def lanes(self) -> int:
        return self.screening.lanes()

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        """Start screening a checked candidate on a spare worker; `run` picks the result up."""
        self.screening.prefetch(patch, select)

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        screening = patch is not None and fail_fast
        if screening and self.warm_workers > 0:
            report = self.screening.screen(patch, select)  # type: ignore[arg-type]
            if report is not None:
                self.killed += 1 if report.timed_out else 0
                return report
        report = self.cold.run(patch, select, fail_fast, self.screening_timeout() if screening else 0.0, self.policy)
        if screening and report.timed_out:
            self.killed += 1
        if patch is None:
            self._suite_seconds = max(self._suite_seconds, sum(r.duration for r in report.results))
            if report.failed:
                # Something to fix: start the workers now, while localization runs.
                self.screening.start_in_background()
        return report

    def coverage(self, select: Sequence[str] = (), tool: str = "coverage"
                 ) -> tuple[TestReport, dict[str, dict[str, frozenset[int]]]]:
        """One suite run that also records which project lines each test executed
        (`tool="settrace"` skips coverage.py and traces lines in the plugin)."""
        lines: list[str] = []
        report = self.cold.run(None, select, False, 0.0, coverage_policy(self.policy, self.prepared, tool), lines)
        return report, parse_coverage(lines)

    def cancel(self) -> None:
        self.sandbox.kill_all()

    def close(self) -> None:
        self.screening.close()
        self.scratch.close()

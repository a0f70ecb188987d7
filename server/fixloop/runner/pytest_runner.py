"""TestRunner: real pytest, under the project's own interpreter, inside the sandbox, on a scratch copy."""

from __future__ import annotations

import dataclasses
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Mapping, Sequence

from ..core.model import Limits, Patch, TestReport
from ..sandbox.api import Policy, Sandbox, SandboxLimits
from .interpreter import interpreter_for, sandbox_env
from .report import parse_coverage, parse_report
from .scratch import Scratch
from .warm import WarmPool, WarmWorker

PLUGIN = Path(__file__).with_name("fixloop_report.py")
WARM = Path(__file__).with_name("warm_worker.py")
JUNIT = ".fixloop-junit.xml"  # written by pytest in the run's own fresh copy, forwarded by the plugin
MAX_REPORT_BYTES = 20_000_000


class PytestRunner:
    """`run(patch, select, fail_fast)`: a screening run (a patch, fail_fast) goes to a warm worker when
    one is up; every other run, including the full-suite confirmation of a fix, is a normal sandboxed
    pytest process."""

    def __init__(
        self, workspace: Path, sandbox: Sandbox, limits: Limits = Limits(), python: str = "",
        overlays: Mapping[str, str] | None = None, pytest_args: Sequence[str] = (), warm_workers: int = 2,
        candidate_memory_mb: int = 2048,
    ) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        self.limits = limits
        self.interpreter = interpreter_for(workspace, python, sandbox)  # never runs project code on the host
        self.python = self.interpreter.path
        self.pytest_args = tuple(pytest_args)
        self.scratch = Scratch(workspace, dict(overlays or {}))
        # fixloop's own files, all in place before anything runs; every run sees them read-only.
        self.scratch.add_runtime("fixloop_report.py", PLUGIN.read_bytes())
        self.scratch.add_runtime("fixloop_warm.py", WARM.read_bytes())
        self.coverage_package = self._expose_coverage()
        self.policy = Policy(read_only=self.interpreter.read_only,
                             env=sandbox_env(self.python, self.scratch.runtime))
        self.runs = 0
        self.warm_workers = warm_workers
        self.candidate_memory_mb = candidate_memory_mb
        self.pool: WarmPool | None = None
        self.warm_problem = ""
        self.killed = 0  # screening runs that hung or hit a limit
        self._suite_seconds = 0.0  # pytest-measured time of the last unpatched run
        self._starting: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._prefetched: dict[tuple[object, tuple[str, ...]], Future[TestReport]] = {}
        self._executor = ThreadPoolExecutor(max(1, warm_workers), thread_name_prefix="fixloop-prefetch")

    @property
    def root(self) -> Path:
        return self.scratch.root

    def sources(self) -> dict[str, str]:
        return self.scratch.sources()

    def screening_timeout(self) -> float:
        """Per-test limit of a candidate: ten times what the unpatched tests needed (at least 1 s),
        so a candidate that hangs costs little."""
        return min(self.limits.per_test_timeout, max(1.0, 10.0 * self._suite_seconds + 0.5))

    def lanes(self) -> int:
        """How many candidates can be screened at once (the live warm workers)."""
        pool = self._warm_pool() if self.warm_workers > 0 else None
        return sum(w.alive for w in pool.workers) if pool is not None else 1

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        """Start screening a checked candidate on a spare worker; `run` picks the result up."""
        pool = self.pool
        key = (patch.key(), tuple(select))
        if pool is None or key in self._prefetched or self._closed:
            return
        if len(self._prefetched) >= 8:  # results the loop never asked for (it skipped or stopped)
            self._prefetched.pop(next(iter(self._prefetched)))
        self._prefetched[key] = self._executor.submit(self._screen, pool, patch, select)

    def _screen(self, pool: WarmPool, patch: Patch, select: Sequence[str]) -> TestReport:
        try:
            files = {c.path: self.scratch.encoded(c.path, c.after) for c in patch.changes}
        except UnicodeEncodeError as e:
            return TestReport(problem=f"the candidate cannot be written in its file's encoding ({e.reason})")
        timeout = self.screening_timeout()
        # The child's own limit adds pytest's start-up in the child to the per-test limit.
        return pool.run(files, [*self.pytest_args, "-x", *select], timeout + 3.0, timeout, self.candidate_memory_mb)

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        screening = patch is not None and fail_fast
        if screening and self.warm_workers > 0:
            ahead = self._prefetched.pop((patch.key(), tuple(select)), None)  # type: ignore[union-attr]
            pool = self._warm_pool()
            if pool is not None:
                report = ahead.result() if ahead is not None else self._screen(pool, patch, select)  # type: ignore[arg-type]
                if not report.problem:
                    self.killed += 1 if report.timed_out else 0
                    return report
                self.warm_problem = report.problem
        report = self._cold_run(patch, select, fail_fast, self.screening_timeout() if screening else 0.0)
        if screening and report.timed_out:
            self.killed += 1
        if patch is None:
            self._suite_seconds = max(self._suite_seconds, sum(r.duration for r in report.results))
            if report.failed and self.warm_workers > 0 and self._starting is None and self.pool is None:
                # Something to fix: start the workers now, while localization runs.
                self._starting = threading.Thread(target=self._warm_pool, daemon=True)
                self._starting.start()
        return report

    def _warm_pool(self) -> WarmPool | None:
        if self._starting is not None and self._starting is not threading.current_thread():
            self._starting.join()
        with self._lock:
            return self._start_pool()

    def _start_pool(self) -> WarmPool | None:
        if self.pool is None and not self.warm_problem and not self._closed:
            workers: list[WarmWorker] = []
            errors: list[str] = []

            def start(i: int) -> None:
                try:
                    workers.append(WarmWorker(i, self.scratch.tree(), self.sandbox, self.python, self.policy,
                                              self.limits.wall_seconds + 60, self.pytest_args))
                except (RuntimeError, OSError) as e:
                    errors.append(str(e))

            threads = [threading.Thread(target=start, args=(i,)) for i in range(self.warm_workers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if workers:
                self.pool = WarmPool(sorted(workers, key=lambda w: w.index))
            else:
                self.warm_problem = "; ".join(errors) or "no warm worker started"
        if self.pool is not None and not self.pool.alive:
            self.warm_problem = "the warm workers stopped"
            return None
        return self.pool

    def coverage(self, select: Sequence[str] = (), tool: str = "coverage"
                 ) -> tuple[TestReport, dict[str, dict[str, frozenset[int]]]]:
        """One suite run that also records which project lines each test executed
        (`tool="settrace"` skips coverage.py and traces lines in the plugin)."""
        extra: dict[str, str] = {"FIXLOOP_COVERAGE": "settrace" if tool == "settrace" else "1"}
        read_only: tuple[Path, ...] = ()
        if self.coverage_package is not None:
            # Appended, so a coverage the project installed itself wins.
            extra["PYTHONPATH"] = f"{self.policy.env.get('PYTHONPATH', '')}:{self.scratch.runtime / 'cov'}"
            read_only = (self.coverage_package,)
        lines: list[str] = []
        report = self._cold_run(None, select, False, 0.0, extra, read_only, lines)
        return report, parse_coverage(lines)

    def _expose_coverage(self) -> Path | None:
        """fixloop's coverage.py, linked from the host-only runtime folder (made before any run)."""
        try:
            import coverage
        except ImportError:
            return None
        package = Path(coverage.__file__).resolve().parent
        (self.scratch.runtime / "cov").mkdir(mode=0o755)
        os.symlink(package, self.scratch.runtime / "cov" / "coverage")
        return package

    def _cold_run(self, patch: Patch | None, select: Sequence[str], fail_fast: bool, per_test: float,
                  extra_env: Mapping[str, str] | None = None, extra_read_only: tuple[Path, ...] = (),
                  raw_lines: list[str] | None = None) -> TestReport:
        """A normal sandboxed pytest on a fresh copy: the authoritative verdict."""
        self.runs += 1
        try:
            changes = {c.path: self.scratch.encoded(c.path, c.after) for c in (patch.changes if patch else ())}
        except UnicodeEncodeError as e:
            return TestReport(problem=f"the candidate cannot be written in its file's encoding ({e.reason})")
        argv = [self.python, "-m", "pytest", "-p", "fixloop_report", "-p", "no:cacheprovider", "-q",
                "--color=no", "--no-header", "-rN", f"--junitxml={JUNIT}", *self.pytest_args]
        if fail_fast:
            argv.append("-x")
        argv.extend(select)
        env = dict(self.policy.env)
        env["FIXLOOP_TEST_TIMEOUT"] = str(per_test or self.limits.per_test_timeout)
        env.update(extra_env or {})
        policy = Policy(self.policy.read_only + extra_read_only, env, self.policy.network)
        wall = self.limits.test_timeout
        limits = SandboxLimits(wall_seconds=wall, cpu_seconds=int(wall) + 10)
        try:
            result = self.sandbox.run(argv, self.scratch.tree(changes), limits, policy)
        except (OSError, ValueError) as e:  # e.g. a change through a link of the pristine tree
            return TestReport(problem=f"the run could not start: {e}")
        lines = result.report.decode("utf-8", "replace").splitlines()
        if raw_lines is not None:
            raw_lines.extend(lines)
        report = parse_report(lines, result.returncode, result.duration, result.timed_out, result.output,
                              result.report_overflow)
        # A run cut at the disk quota says nothing about the tests: it is an error, not a failure to fix.
        if result.limit_hit and result.limit_hit != "wall" and (not report.results or result.limit_hit == "disk"):
            report = TestReport(report.results, report.collection_errors, report.returncode, report.duration,
                                report.timed_out, report.output_tail,
                                "sandbox limit hit: disk (the run wrote more than sandbox.disk_quota_mb allows)"
                                if result.limit_hit == "disk" else f"sandbox limit hit: {result.limit_hit}")
        return dataclasses.replace(report, cpu_seconds=round(result.cpu_seconds, 3), peak_mb=round(result.peak_mb, 1))

    def cancel(self) -> None:
        self.sandbox.kill_all()

    def close(self) -> None:
        self._closed = True
        if self._starting is not None:
            self._starting.join()
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self.pool is not None:
            self.pool.close()
        self.scratch.close()

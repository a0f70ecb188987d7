"""A normal sandboxed pytest process on a fresh copy of the tree: the authoritative verdict."""

from __future__ import annotations

import dataclasses
import json
from typing import Mapping, Sequence

from fixloop.core.model import Limits, Patch, TestReport
from fixloop.adapters.sandbox.api import Policy, Sandbox, SandboxLimits
from fixloop.adapters.runner.canary import CANARY_PATH, SOURCE
from fixloop.adapters.runner.report import parse_report, progress
from fixloop.adapters.runner.scratch import Scratch

JUNIT = ".fixloop-junit.xml"  # written by pytest in the run's own fresh copy, forwarded by the plugin
DEFAULT_RUN_SECONDS = 120.0  # a run's cap when neither the caller nor the settings give one
# The report plugin's selection (runner/fixloop_options.py, which imports pytest: never on the host).
OPTION, SELECT_FILE = "--fixloop-select", ".fixloop-select.json"
MAX_LIMITS_ENV = 100_000  # bytes an environment variable or an argument may carry (the kernel caps one at 128 KiB)


def candidate_files(scratch: Scratch, patch: Patch | None) -> dict[str, bytes] | TestReport:
    """The patch's files in their own encodings, or the report of a candidate that cannot be written."""
    try:
        return {c.path: scratch.encoded(c.path, c.after) for c in (patch.changes if patch else ())}
    except UnicodeEncodeError as e:
        return TestReport(problem=f"the candidate cannot be written in its file's encoding ({e.reason})")


def selection_args(select: Sequence[str], room: int | None = MAX_LIMITS_ENV) -> tuple[list[str], bytes | None]:
    """pytest's arguments for `select`, and the list of tests to write as SELECT_FILE when it does not fit in
    `room` bytes of an argument (None: any size, a warm worker's arguments are never exec'd). Node ids go to
    the report plugin (`--fixloop-select`), only their files to pytest: an id that pytest does not collect
    again (a parameter made of the moment) then ends no run, and thousands of ids are not matched one by
    one against the whole collection (runner/fixloop_options.py). Paths go to pytest as they are."""
    if not select or not all("::" in s for s in select):
        return list(select), None
    ids = json.dumps(list(select))
    files = list(dict.fromkeys(s.split("::", 1)[0] for s in select))
    if room is None or len(ids) <= room:
        return [f"{OPTION}={ids}", *files], None
    return [f"{OPTION}=@{SELECT_FILE}", *files], ids.encode("utf-8", "surrogateescape")


def pytest_argv(python: str, pytest_args: Sequence[str], fail_fast: bool) -> list[str]:
    """`python -m pytest ...` under fixloop's supervisor: the process that writes the report to the host is
    not the one that runs the code under test (runner/fixloop_supervise.py)."""
    argv = [python, "-m", "fixloop_supervise", "-p", "fixloop_report", "-p", "no:cacheprovider", "-q",
            "--color=no", "--no-header", "-rN", f"--junitxml={JUNIT}", *pytest_args]
    if fail_fast:
        argv.append("-x")
    return argv


class ColdRunner:
    """Counts its runs; each is a fresh sandboxed process, so nothing one run leaves reaches the next."""

    def __init__(self, scratch: Scratch, sandbox: Sandbox, python: str, limits: Limits,
                 pytest_args: Sequence[str] = ()) -> None:
        self.scratch = scratch
        self.sandbox = sandbox
        self.python = python
        self.limits = limits
        self.pytest_args = tuple(pytest_args)
        self.runs = 0
        self.overflowed = False  # the last run's report passed the cap (then nothing in it is a pass)
        self.cut = False  # the last run was stopped at its own cap (not one test at its limit)
        self.progress = (0, 0)  # (tests collected, tests finished) of the last run, as far as it said

    def run(self, patch: Patch | None, select: Sequence[str], fail_fast: bool, per_test: tuple[float, float],
            policy: Policy, raw_lines: list[str] | None = None, cap: float = 0.0,
            per_test_limits: Mapping[str, float] | None = None, extra: Mapping[str, bytes] | None = None
            ) -> TestReport:
        """`per_test` is (wall, cpu) seconds a test may take, 0 for none, and `per_test_limits` a test's own
        limit by node id; `cap` is what the whole run may take (0: the settings' `test_timeout`); `extra`:
        fixloop's own files written into the run's copy too (the canary)."""
        changes = candidate_files(self.scratch, patch)
        if isinstance(changes, TestReport):
            return changes
        changes.update(extra or {})
        args, listed = selection_args(select)
        if listed is not None:
            changes[SELECT_FILE] = listed
        argv = pytest_argv(self.python, self.pytest_args, fail_fast) + args
        return self._run(argv, changes, per_test, policy, raw_lines, cap, per_test_limits)

    def canary(self, patch: Patch, per_test: tuple[float, float], policy: Policy, cap: float) -> TestReport:
        """The canary tests (runner/canary.py) with the candidate's change, in the project's own pytest
        configuration but without the run's `pytest_args` (a `-k` or `-m` there would deselect them)."""
        changes = candidate_files(self.scratch, patch)
        if isinstance(changes, TestReport):
            return changes
        changes[CANARY_PATH] = SOURCE.encode("utf-8")
        return self._run(pytest_argv(self.python, (), False) + [CANARY_PATH], changes, per_test, policy, None, cap)

    def _run(self, argv: list[str], changes: dict[str, bytes], per_test: tuple[float, float], policy: Policy,
             raw_lines: list[str] | None, cap: float, per_test_limits: Mapping[str, float] | None = None
             ) -> TestReport:
        self.runs += 1
        self.overflowed = self.cut = False
        self.progress = (0, 0)
        env = dict(policy.env)
        env["FIXLOOP_TEST_TIMEOUT"], env["FIXLOOP_CPU_LIMIT"] = str(per_test[0]), str(per_test[1])
        table = json.dumps(dict(per_test_limits or {}))
        if per_test_limits and len(table) <= MAX_LIMITS_ENV:  # else every test keeps `per_test`
            env["FIXLOOP_TEST_LIMITS"] = table
        wall = cap or self.limits.test_timeout or DEFAULT_RUN_SECONDS
        limits = SandboxLimits(wall_seconds=wall, cpu_seconds=int(wall) + 10)
        try:
            result = self.sandbox.run(argv, self.scratch.tree(changes), limits, Policy(policy.read_only, env,
                                                                                       policy.network))
        except (OSError, ValueError) as e:  # e.g. a change through a link of the pristine tree
            return TestReport(problem=f"the run could not start: {e}")
        self.overflowed = result.report_overflow
        self.cut = result.timed_out or result.limit_hit == "wall"
        lines = result.report.decode("utf-8", "replace").splitlines()
        self.progress = progress(lines)
        if raw_lines is not None:
            raw_lines.extend(lines)
        report = parse_report(lines, result.returncode, result.duration, result.timed_out, result.output,
                              result.report_overflow)
        report = _limit_problem(report, result.limit_hit)
        return dataclasses.replace(report, cpu_seconds=round(result.cpu_seconds, 3), peak_mb=round(result.peak_mb, 1))


def _limit_problem(report: TestReport, limit_hit: str) -> TestReport:
    """A run cut at the disk quota (or at a limit before any result) says nothing about the tests: it is an
    error, not a failure to fix."""
    if not limit_hit or limit_hit == "wall" or (report.results and limit_hit != "disk"):
        return report
    problem = ("sandbox limit hit: disk (the run wrote more than sandbox.disk_quota_mb allows)"
               if limit_hit == "disk" else f"sandbox limit hit: {limit_hit}")
    return TestReport(report.results, report.collection_errors, report.returncode, report.duration,
                      report.timed_out, report.output_tail, problem)

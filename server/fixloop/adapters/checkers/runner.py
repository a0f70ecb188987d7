"""Tests and a checker's findings as one runner: the loop's targets may be findings, its guard "no new finding".

`CheckedRunner` wraps the pytest runner. Ids of findings (`findings.py`) never reach pytest: the checker
answers them, in the same sandbox as the tests, from the project's own interpreter. The baseline checks the
whole project once; a candidate is checked again only in the files it changes (their text written into the
run's copy), once per candidate. A run that selects findings only starts no pytest at all, so a candidate is
screened on its findings in a fraction of a second before any test runs.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Sequence

from fixloop.adapters.checkers import mypy, pyright, ruff
from fixloop.adapters.checkers.findings import PROPOSER, Finding, deleted, outcomes, parse_id
from fixloop.adapters.runner.cold import candidate_files
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.api import Policy, SandboxLimits
from fixloop.core.model import Patch, Suspect, TestReport, TestResult
from fixloop.core.patch import touched
from fixloop.core.ports import Localizer

CHECK_SECONDS = 120.0  # what one checker run may take (the whole project at the baseline)
OUTPUT_BYTES = 16 * 1024 * 1024  # head and tail of its JSON kept, each: a project with many findings is long
CHECKERS = {ruff.TOOL: ruff, mypy.TOOL: mypy, pyright.TOOL: pyright}  # checkers.TOOLS, each with its module
# Top-level names that hold no code of the project's own (what a whole-project checker is not given).
NOT_CODE = frozenset({"setup.py", "conftest.py", "noxfile.py", "tasks.py", "docs", "doc", "examples", "benchmarks", "bench"})
NO_TARGET = "nothing to check"  # the checker asked for paths: the next of its TRIES


class CheckedRunner:
    """The pytest runner's runs with the checkers' results added. Everything else is the pytest runner's."""

    def __init__(self, inner: PytestRunner, tools: Sequence[str], is_test_file: Callable[[str], bool],
                 focus: frozenset[str] = frozenset()) -> None:
        self.inner = inner
        self.tools = tuple(t for t in dict.fromkeys(tools) if t in CHECKERS)
        self.is_test_file = is_test_file
        self.focus = focus  # only findings in these files are targets (empty: every file); all are guarded
        self.baseline: dict[str, list[Finding]] = {}  # tool -> its findings in the project's own files
        self._paths: dict[str, tuple[str, ...]] = {}  # tool -> what it was given to check the whole project
        self._checked: dict[tuple[tuple[str, str], ...], dict[str, list[Finding]]] = {}
        self._began = False

    def __getattr__(self, name: str) -> object:  # notes, cancel, close, install_offer, ...: the pytest runner's
        return getattr(self.inner, name)

    # ---- the runner port -------------------------------------------------------------------------
    @property
    def root(self) -> object:
        return self.inner.root

    def sources(self) -> Mapping[str, str]:
        return self.inner.sources()

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        ours, tests = self.split(select)
        report = self.inner.run(patch, tests, fail_fast) if tests or not select else TestReport()
        return self._with_findings(report, patch, ours)

    def run_pair(self, patch: Patch, select: Sequence[str]) -> tuple[TestReport, TestReport]:
        ours, tests = self.split(select)
        before, after = self.inner.run_pair(patch, tests)
        return self._with_findings(before, None, ours), self._with_findings(after, patch, ours)

    def covering(self, patch: Patch) -> frozenset[str] | None:
        return self.inner.covering(patch)

    def apart(self, patch: Patch, tests: Sequence[str]) -> frozenset[str]:
        """Findings whose lines the patch does not touch, as tests that never run its code: a change elsewhere
        may still clear one (a use of an unused import), so this only lets a fix of some targets be kept while
        the others are looked for; the whole run still judges every target. The checker's own fix is made
        for its findings, not for a failing test: every failing test is apart from it (an import removed or
        sorted is run by every test that imports the module, and a test failing for another fault must not
        block it), and the whole run still checks that no test fails that passed."""
        ours, theirs = self.split(tests)
        changed = {(path, line + 1) for path, line in touched(patch)}
        lines = {t: {(f.path, n) for f in self._all_baseline() if f.target == t for n in f.lines} for t in ours}
        apart = {t for t in ours if lines[t] and not lines[t] & changed}
        if patch.proposer == PROPOSER:
            return frozenset(apart) | frozenset(theirs)
        return frozenset(apart) | (self.inner.apart(patch, theirs) if theirs else frozenset())

    def lines_of(self, test: str) -> frozenset[tuple[str, int]] | None:
        parsed = parse_id(test, self.tools)
        if parsed is None:
            return self.inner.lines_of(test)
        return frozenset((f.path, f.line) for f in self._all_baseline() if f.target == test)

    def lanes(self) -> int:
        return self.inner.lanes()

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        _, tests = self.split(select)
        if tests:
            self.inner.prefetch(patch, tests)

    def tested(self, patch: Patch) -> bool:
        """Tests that passed at the baseline run the code `patch` changes (as far as they were recorded)."""
        running = self.inner.covering(patch)
        return bool(running and running & self.inner.passed_before)

    # ---- the checkers ----------------------------------------------------------------------------
    def findings(self) -> list[Finding]:
        """The baseline's findings that are targets: in the project's own files, not its tests."""
        return [f for f in self._all_baseline() if not self.is_test_file(f.path) and self._focused(f.path)]

    def _focused(self, path: str) -> bool:
        return not self.focus or path in self.focus

    def _all_baseline(self) -> list[Finding]:
        return [f for found in self.baseline.values() for f in found]

    def split(self, select: Sequence[str]) -> tuple[list[str], list[str]]:
        """(the ids of findings, the tests) of `select`."""
        ours = [s for s in select if parse_id(s, self.tools) is not None]
        return ours, [s for s in select if parse_id(s, self.tools) is None]

    def _with_findings(self, report: TestReport, patch: Patch | None, asked: Sequence[str]) -> TestReport:
        """`report` with the results of the ids `asked` (all of them when none was), after `patch`."""
        if not self._began:
            self._began = True
            self._check_baseline()
        if not self.baseline:
            return report
        now = self._check(patch) if patch is not None else {}
        wanted = set(asked)
        results: list[TestResult] = []
        for tool, found in self.baseline.items():
            rechecked = self._rechecked(tool, patch)
            ran = outcomes(tool, self._ours(found), self._ours(now.get(tool, [])), rechecked, self._focused)
            results += [deleted(r, found, patch) for r in ran if not wanted or r.nodeid in wanted]
        return dataclasses.replace(report, results=report.results + tuple(results))

    def _ours(self, found: Sequence[Finding]) -> list[Finding]:
        return [f for f in found if not self.is_test_file(f.path)]

    def _rechecked(self, tool: str, patch: Patch | None) -> Sequence[str]:
        if patch is None:
            return ()
        return list(self.inner.sources()) if CHECKERS[tool].WHOLE else patch.paths

    def _check_baseline(self) -> None:
        for tool in self.tools:
            found: list[Finding] | str = ""
            for paths in CHECKERS[tool].TRIES:
                if CHECKERS[tool].WHOLE and paths == (".",):
                    paths = self._roots()  # checked again for each candidate: the project's code, not its tests
                found = self._run_checker(tool, list(paths), {})
                if found != NO_TARGET:
                    self._paths[tool] = paths
                    break
            if isinstance(found, str):
                self.inner.notes.append(f"--check {tool}: {found}; the run goes on without it")
                continue
            self.baseline[tool] = found
            ours = [f for f in self._ours(found) if self._focused(f.path)]
            targets = {f.target for f in ours}
            elsewhere = len(self._ours(found)) - len(ours)
            self.inner.notes.append((f"{tool}: {len(ours)} finding(s) of {len(targets)} rule(s) in "
                                     f"{len({f.path for f in ours})} file(s) are targets" if ours else
                                     f"{tool}: no findings" + (" in " + ", ".join(sorted(self.focus)) if self.focus else ""))
                                    + (f"; {elsewhere} in other files are left as they are (none may be added)"
                                       if elsewhere else ""))

    def _roots(self) -> tuple[str, ...]:
        """The folders and top-level modules that hold the project's own code (not its tests, docs or setup)."""
        roots = {p.split("/", 1)[0] if "/" in p else p for p in self.inner.sources()
                 if not self.is_test_file(p) and p.endswith(".py")}
        return tuple(sorted(r for r in roots if r not in NOT_CODE)) or (".",)

    def _check(self, patch: Patch) -> dict[str, list[Finding]]:
        key = patch.key()
        if key not in self._checked:
            changes = candidate_files(self.inner.scratch, patch)
            files = [p for p in patch.paths if p.endswith(".py")]
            checked: dict[str, list[Finding]] = {}
            for tool in self.baseline:
                paths = list(self._paths[tool]) if CHECKERS[tool].WHOLE else files
                # No paths: a whole-project checker checks what its configuration names; a file checker, nothing.
                found = self._run_checker(tool, paths, changes if isinstance(changes, dict) else {}) \
                    if paths or CHECKERS[tool].WHOLE else []
                # A checker that fails on the candidate (a syntax it cannot read) sees new findings.
                checked[tool] = found if isinstance(found, list) else [
                    Finding(tool, "error", found, p, 1) for p in (files or patch.paths)]
            self._checked[key] = checked
        return self._checked[key]

    def _run_checker(self, tool: str, paths: list[str], changes: Mapping[str, bytes]) -> list[Finding] | str:
        checker, inner = CHECKERS[tool], self.inner
        limits = SandboxLimits(wall_seconds=CHECK_SECONDS, cpu_seconds=int(CHECK_SECONDS) + 10,
                               output_bytes=OUTPUT_BYTES)
        policy = Policy(inner.policy.read_only, inner.policy.env, False)
        try:
            result = inner.sandbox.run(checker.argv(inner.python, paths), inner.scratch.tree(dict(changes)),
                                       limits, policy)
        except (OSError, ValueError) as e:
            return f"{tool} could not start: {e}"
        if result.timed_out or result.limit_hit:
            return f"{tool} did not finish within its limit ({result.limit_hit or 'wall'})"
        stderr, output = result.stderr_head + result.stderr_tail, result.stdout_head + result.stdout_tail
        if checker.no_target(stderr):
            return NO_TARGET
        problem = checker.problem(result.returncode, stderr, inner.python, output)
        if problem:
            return problem
        if result.stdout_total > len(output.encode("utf-8", "surrogateescape")):
            return f"{tool}'s output was longer than fixloop reads ({OUTPUT_BYTES * 2} bytes)"
        return checker.parse(output, list(inner.sources()))


class CheckedLocalizer:
    """The findings' own lines first (a checker says where), then the localizer's suspects for failing tests."""

    def __init__(self, inner: Localizer, runner: CheckedRunner) -> None:
        self.inner = inner
        self.runner = runner

    @property
    def runs_tests(self) -> bool:
        return self.inner.runs_tests

    @property
    def note(self) -> str:
        return self.inner.note

    def localize(self, report: TestReport, sources: Mapping[str, str], target_tests: Sequence[str]
                 ) -> tuple[Suspect, ...]:
        ours, tests = self.runner.split(target_tests)
        wanted = set(ours)
        found = [f for f in self.runner.findings() if f.target in wanted]
        suspects = {(f.path, f.line): Suspect(f.path, f.line, 1.0, f"{f.tool} {f.code}: {f.message}") for f in found}
        if tests:
            for s in self.inner.localize(report, sources, tests):
                suspects.setdefault((s.path, s.line), s)
        return tuple(sorted(suspects.values(), key=lambda s: (-s.score, s.path, s.line)))


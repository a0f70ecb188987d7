"""Check a fix that no run produced (memory's past fix, asked for from the editor) before it is offered.

The fix is a candidate like any other, so it gets what candidates get: the integrity guard, the safety
check, then the project's whole test suite on a scratch copy with the fix applied, in the sandbox. When
tests fail, the same tests run without the fix: only the ones the fix breaks count against it. The
language server runs this as a session (`lsp/runs.py`): progress, cancellation, then the review of a
run's fix when it passes.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable

from fixloop.core.guard import rejection
from fixloop.core.integrity import is_test_file
from fixloop.core.model import Event, Outcome, Patch, Scope, Status, TestReport
from fixloop.application.result import CheckPart, RunResult
from fixloop.application.run import Run, RunRequest
from fixloop.adapters.runner.interpreter import InterpreterUnusable
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.safety.check import PatchSafety
from fixloop.adapters.sandbox.api import SandboxUnavailable
from fixloop.application.wiring import make_runner, make_task

MAX_NAMED = 5  # failing tests named in a message


class FixCheck(Run):
    """A run whose outcome is FIXED with the patch when the check passes, else GAVE_UP (the fix is refused
    or breaks tests) or ERROR (the check could not run), with a message."""

    def __init__(self, request: RunRequest, patch: Patch, memory_id: str) -> None:
        # One suite run, maybe a second of a few tests: warm fork servers would cost more than they save.
        super().__init__(dataclasses.replace(request, settings=dataclasses.replace(request.settings, warm_workers=0)))
        self.patch = patch
        self.overlays = dict(request.overlays)
        self.memory_id = memory_id
        self.runner: PytestRunner | None = None

    def cancel(self) -> None:
        super().cancel()
        if self.runner is not None:
            self.runner.cancel()

    def run(self, on_event: Callable[[Event], None] = lambda e: None) -> Outcome:
        started = time.monotonic()
        check: dict[str, Any] = {"tests": 0, "failing": [], "broken": []}
        try:
            outcome = self._check(on_event, check)
        except Exception as e:  # a program failure still ends the check with a summary, never a crash
            reason = str(e) if isinstance(e, (SandboxUnavailable, InterpreterUnusable)) else f"{type(e).__name__}: {e}"
            outcome = Outcome(Status.ERROR, self.run_id, f"the past fix was not checked: {reason}")
        finally:
            if self.runner is not None:
                self.runner.close()
        if self._cancel.is_set():
            outcome = Outcome(Status.CANCELLED, self.run_id, "cancelled")
        outcome = dataclasses.replace(outcome, test_runs=self.runner.runs if self.runner is not None else 0,
                                      durations={"total": time.monotonic() - started})
        self.result = RunResult(outcome, check=CheckPart(self.memory_id, self.patch, check["tests"],
                                                         tuple(check["failing"]), tuple(check["broken"])))
        on_event(Event("finished", self.run_id, time.monotonic(), "done", None,
                       {"status": outcome.status.value, "message": outcome.message}))
        return outcome

    def _check(self, on_event: Callable[[Event], None], check: dict[str, Any]) -> Outcome:
        def refused(message: str) -> Outcome:
            return Outcome(Status.GAVE_UP, self.run_id, message)

        changed = [c.path for c in self.patch.changes if self.overlays.get(c.path, c.before) != c.before]
        if changed:  # the check would test another text than the one the fix is offered on
            return refused(f"{changed[0]} changed since the past fix was asked for: nothing was applied; ask again")
        guard = (lambda path: False) if self.settings.allow_test_edits else is_test_file
        rejected = rejection(self.patch, 1, guard)
        if rejected is not None:
            return refused(f"the past fix is refused: it {rejected.note}")
        verdict = PatchSafety().check(self.patch)
        if not verdict.ok:
            return refused(f"the past fix is refused by the safety check: {verdict.reason}")
        task = make_task(self.workspace, self.settings, Scope(), self.overlays)
        self.runner = make_runner(task, self.settings)
        if self._cancel.is_set():
            return Outcome(Status.CANCELLED, self.run_id, "cancelled")
        on_event(Event("candidate", self.run_id, time.monotonic(), "run", 1))
        with_fix = self.runner.run(self.patch)
        self._tested(on_event, with_fix)
        if with_fix.problem or with_fix.timed_out:
            return Outcome(Status.ERROR, self.run_id, "the past fix was not checked: the test run failed: "
                           + (with_fix.problem or "it ran out of time"))
        check["tests"] = len(with_fix.results)
        if not with_fix.results and not with_fix.collection_errors:
            return Outcome(Status.FIXED, self.run_id, "the project has no tests, so the past fix is unchecked: "
                           "review it", self.patch)
        failing = [r.nodeid for r in with_fix.failed]
        check["failing"] = failing
        if not failing and not with_fix.collection_errors:
            return Outcome(Status.FIXED, self.run_id, f"the past fix passes the project's {len(with_fix.results)} "
                           "tests", self.patch)
        without = self.runner.run(None, () if with_fix.collection_errors else failing)
        self._tested(on_event, without)
        if with_fix.collection_errors and not without.collection_errors:
            return refused("the past fix makes the tests fail to load: " + with_fix.collection_errors[0][:300])
        passed_without = {r.nodeid for r in without.passed}
        broken = [n for n in failing if n in passed_without or n not in {r.nodeid for r in without.results}]
        check["broken"] = broken
        if broken:
            named = ", ".join(broken[:MAX_NAMED]) + (", ..." if len(broken) > MAX_NAMED else "")
            return refused(f"the past fix makes {len(broken)} test{'s' if len(broken) != 1 else ''} fail: {named}")
        return Outcome(Status.FIXED, self.run_id, f"the past fix breaks none of the project's "
                       f"{len(with_fix.results)} tests ({len(failing)} fail with or without it)", self.patch)

    def _tested(self, on_event: Callable[[Event], None], report: TestReport) -> None:
        on_event(Event("tested", self.run_id, time.monotonic(), "run", 1,
                       {"passed": len(report.passed), "failed": len(report.failed)}))

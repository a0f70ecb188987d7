"""One fix run, shared by the CLI and the language server: wire, loop, log, clean up."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import replace
from typing import Any, Callable

from fixloop.application.advice import Situation, advise
from fixloop.application.config import project_settings
from fixloop.core.loop import drive, run
from fixloop.core.model import Audit, Event, Outcome, Status
from fixloop.core.ports import CallLogging, Ports
from fixloop.core.telemetry import call_fields
from fixloop.application.history.store import remember_project
from fixloop.application.result import RunResult
from fixloop.application.run import Run, RunRequest
from fixloop.application.runlog import RunLog, record_decision
from fixloop.adapters.runner.install import Installed, install
from fixloop.adapters.runner.interpreter import InterpreterUnusable
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.safety.hooks import ON_APPLY, POST_FIX, tell
from fixloop.adapters.sandbox.api import SandboxUnavailable
from fixloop.core.bandit import Choice
from fixloop.adapters.memory.outcomes import record as record_strategy
from fixloop.application.wiring import llm_api_key, make_auditor, make_ports, make_runner, make_task
from fixloop.application.workspace_io import ApplyResult, apply_patch


def seed_of(run_id: str) -> int:
    """A run's default seed: stable for a run id (hash() is salted per process, so not that)."""
    return int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:4], "big")


class FixSession(Run):
    """A fix run: the loop on the workspace's failing tests."""

    def __init__(self, request: RunRequest) -> None:
        super().__init__(request)
        # Settings problems found at the edge (refused project keys first): named in the run log too.
        self.notes = request.notes if request.notes is not None else tuple(project_settings(self.workspace)[1])
        self.seed = seed_of(self.run_id) if request.seed is None else request.seed
        self.task = make_task(self.workspace, self.settings, request.scope, request.overlays, self.seed)
        self.runner: PytestRunner | None = None
        self.originals: dict[str, bytes] = {}
        self.encodings: dict[str, str] = {}
        self.python = ""  # the interpreter that runs the tests, once known
        # Chosen when the run first asks for its proposers (`wiring.make_ports`), after its baseline.
        self.strategy = Choice("memory-first", "default")
        self.suspects: list[str] = []  # path:line, best first, once localized (for the end message)
        self.failed_setup = ""  # a run that could not start: sandbox | interpreter | internal
        self.review: dict[str, Any] = {}  # the reviewer's word on the fix offered (or the last one it rejected)
        self.audit: Audit | None = None  # the security pass on the fix offered, with `audit.enabled`

    def cancel(self) -> None:
        super().cancel()
        if self.runner is not None:
            self.runner.cancel()

    @property
    def setup_error(self) -> str:
        return self.failed_setup

    def run(self, on_event: Callable[[Event], None] = lambda e: None) -> Outcome:
        log = RunLog(self.workspace, self.run_id)

        noted: list[bool] = []

        def handle(event: Event) -> None:
            if event.kind == "started":
                event = replace(event, data={**event.data, "python": self.python, "limits": self.limits()})
            if event.kind == "finished" and not noted:  # stopped before it started: the settings still count
                notes(event.time)
            if event.kind == "localized":
                self.suspects = [str(x) for x in event.data.get("suspects", ())]
            if event.kind == "reviewed":  # the last word stands: the review of the fix offered
                self.review = {k: event.data[k] for k in ("verdict", "reason", "by")} | {"candidate": event.candidate}
            log.event(event)
            on_event(event)
            if event.kind == "started" and not noted:
                notes(event.time)

        def notes(when: float) -> None:
            noted.append(True)
            for note in self.notes:
                handle(Event("note", self.run_id, when, "start", None, {"message": f"config: {note}", "config": note}))

        def chosen(choice: Choice) -> None:
            self.strategy = choice
            when = time.monotonic()
            handle(Event("strategy", self.run_id, when, "search", None, choice.log_fields()))
            if choice.note:
                handle(Event("note", self.run_id, when, "search", None,
                             {"message": f"config: {choice.note}", "config": choice.note}))

        copy_seconds = 0.0
        try:
            t0 = time.monotonic()
            self.runner = make_runner(self.task, self.settings)
            copy_seconds = time.monotonic() - t0
            self.python = self.runner.interpreter.describe()
            self.originals = dict(self.runner.scratch.disk)
            self.encodings = {n: f.encoding for n, f in self.runner.scratch.files.items()}
            ports = self.ports(self.runner, chosen)
            if self._cancel.is_set():
                outcome = Outcome(Status.CANCELLED, self.run_id, "cancelled")
            else:
                outcome = drive(run(self.task, ports, self.run_id), handle)
                record_strategy(ports.memory, self.strategy.strategy, outcome)  # what the bandit learns from
                outcome = self.audited(ports, outcome, handle)
        except Exception as e:  # a program failure still ends the run cleanly, with a summary
            # No working sandbox is a setup problem with its own instructions, not an internal error.
            message = (str(e) if isinstance(e, (SandboxUnavailable, InterpreterUnusable))
                       else f"internal error: {type(e).__name__}: {e}")
            self.failed_setup = ("sandbox" if isinstance(e, SandboxUnavailable) else
                                "interpreter" if isinstance(e, InterpreterUnusable) else "internal")
            outcome = Outcome(Status.ERROR, self.run_id, message)
            handle(Event("finished", self.run_id, time.monotonic(), "done", None,
                         {"status": "error", "message": outcome.message}))
        finally:
            if self.runner is not None:
                self.runner.close()
        if self._cancel.is_set() and outcome.status is not Status.FIXED:
            outcome = dataclasses.replace(outcome, status=Status.CANCELLED, message="cancelled", patch=None)
        outcome = dataclasses.replace(outcome, durations={"copy": copy_seconds, **outcome.durations})
        self.result = log.finish(self.ended(outcome))
        remember_project(self.workspace)  # `fixloop history --all-projects` finds this project's runs
        return outcome

    def ended(self, outcome: Outcome) -> RunResult:
        """The run's result: its outcome, and what the user's post_fix hook, the reviewer and the audit said."""
        told = tell(POST_FIX, self.settings.hooks, outcome.patch, self.workspace) if outcome.status is Status.FIXED else ""
        offer = self.runner.install_offer if self.runner is not None else None
        return RunResult(outcome, strategy=self.strategy.log_fields(), advice=advise(self.situation(outcome)),
                         review=self.review or None, audit=audit_json(self.audit) if self.audit is not None else None,
                         hooks=(told,) if told else (), python=self.runner.python if self.runner is not None else "",
                         limits=self.limits(),
                         install=None if offer is None else {"module": offer.module, "requirement": offer.requirement,
                                                             "where": offer.where, "python": offer.python,
                                                             "command": offer.command})

    def audited(self, ports: Ports, outcome: Outcome, handle: Callable[[Event], None]) -> Outcome:
        """The security pass on the fix found (`audit.enabled`), logged; its model calls count in the run's usage."""
        auditor = make_auditor(self.settings, ports.proposers, self._cancel.is_set)
        if auditor is None or outcome.status is not Status.FIXED or outcome.patch is None:
            return outcome
        self.audit = auditor.audit(outcome.patch, outcome.baseline)
        for proposer in ports.proposers:  # the audit's model call, on the coder's log
            for call in proposer.drain_calls() if isinstance(proposer, CallLogging) else ():
                handle(Event("model_call", self.run_id, time.monotonic(), "audit", None,
                             {"proposer": proposer.name, **call_fields(call)}))
        handle(Event("audited", self.run_id, time.monotonic(), "done", None, audit_json(self.audit)))
        return dataclasses.replace(outcome, usage=outcome.usage + self.audit.usage)

    def situation(self, outcome: Outcome) -> Situation:
        """What the end message needs to say what was tried and what to do next."""
        s = self.settings
        no_model = ("disabled" if not s.llm.enabled else "offline" if s.offline else
                    "no key" if not llm_api_key(s) else "")
        return Situation(outcome, s, self.task.scope, tuple(self.suspects),
                         self.runner.python if self.runner is not None else "", no_model, self.setup_error)

    def ports(self, runner: PytestRunner, on_choice: Callable[[Choice], None] = lambda choice: None) -> Ports:
        """The loop's adapters for this run, as the settings choose them (`wiring`)."""
        return make_ports(self.task, self.settings, runner, self._cancel.is_set, time.monotonic, on_choice)

    def limits(self) -> dict[str, Any]:
        """The limits this run really uses (after any refused project value), for the log and the summary."""
        s = self.settings
        return {**dataclasses.asdict(s.limits()), "warm_workers": s.warm_workers, "backend": s.sandbox.backend,
                "sandbox_memory_mb": s.sandbox.memory_mb, "sandbox_processes": s.sandbox.processes,
                "disk_quota_mb": s.sandbox.disk_quota_mb,
                "input_price_per_mtok": s.llm.input_price_per_mtok, "output_price_per_mtok": s.llm.output_price_per_mtok}

    def install(self) -> Installed:
        """Install the package this run found missing (the user said yes), logged in the run's folder."""
        runner = self.runner
        assert runner is not None and runner.install_offer is not None
        done = install(runner.install_offer, runner.interpreter, runner.sandbox, self.settings.install)
        record_decision(self.workspace, self.run_id, {"decision": "install", **done.record})
        return done

    def apply(self) -> ApplyResult:
        outcome = self.outcome
        if outcome is None or outcome.patch is None:
            return super().apply()
        result = apply_patch(self.workspace, outcome.patch, self.originals, self.encodings)
        told = tell(ON_APPLY, self.settings.hooks, outcome.patch, self.workspace) if result.ok else ""
        return dataclasses.replace(result, said=(told,)) if told else result


def audit_json(audit: Audit) -> dict[str, Any]:
    """The audit as the run log, `summary.json`, `--json` and the editors read it."""
    return {"by": audit.by, "blocking": audit.blocking, "note": audit.note,
            "findings": [dataclasses.asdict(f) for f in audit.findings]}


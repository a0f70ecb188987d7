"""Drive the real loop (fixloop.core.loop.run) with the real safety check and a real pytest runner (or the
scripted one, where the test is about the model and not about the run)."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from fixloop.application.config import LLMSettings
from fixloop.core.integrity import is_test_file
from fixloop.core.loop import drive, run
from fixloop.core.model import Event, Limits, Outcome, Task
from fixloop.core.ports import Ports, Proposer, TestRunner
from fixloop.adapters.llm.cost import DailyBudget
from fixloop.adapters.llm.proposer import LLMProposer
from fixloop.engines.repair.localize import TracebackLocalizer
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.safety.check import PatchSafety
from fixloop.adapters.sandbox.plain import PlainSandbox
from tests.conftest import PYTHON


@dataclass
class RunResult:
    outcome: Outcome
    events: list[Event] = field(default_factory=list)
    seconds: float = 0.0

    def notes(self) -> list[str]:
        return [str(e.data.get("message")) for e in self.events if e.kind == "note"]


def llm_proposer(url: str, limits: Limits = Limits(), key: str = "test-key", stream: bool = True,
                 cancelled: Callable[[], bool] = lambda: False, daily: DailyBudget | None = None,
                 offline: bool = False, **settings: object) -> LLMProposer:
    llm = LLMSettings(base_url=url, model="fake-model", stream=stream, max_retries=settings.pop("max_retries", 0),  # type: ignore[arg-type]
                      **settings)  # type: ignore[arg-type]
    return LLMProposer(llm, key, limits, offline=offline, cancelled=cancelled, daily=daily)


def run_loop(workspace: Path, proposers: Sequence[Proposer], limits: Limits = Limits(),
             cancelled: Callable[[], bool] = lambda: False, runner: TestRunner | None = None) -> RunResult:
    """The real loop on `workspace`; its tests run in real pytest unless a (fake) `runner` is given."""
    limits = dataclasses.replace(limits, test_timeout=min(limits.test_timeout, 60.0),
                                 per_test_timeout=min(limits.per_test_timeout, 20.0))
    runner = runner or PytestRunner.open(workspace, PlainSandbox(), limits, PYTHON)
    ports = Ports(runner=runner, proposers=list(proposers), localizer=TracebackLocalizer(is_test_file),
                  safety=PatchSafety(), is_test_file=is_test_file, cancelled=cancelled, now=time.monotonic)
    events: list[Event] = []
    started = time.monotonic()
    try:
        outcome = drive(run(Task(workspace, limits=limits), ports, "test-run"), events.append)
    finally:
        if isinstance(runner, PytestRunner):
            runner.close()
    return RunResult(outcome, events, time.monotonic() - started)

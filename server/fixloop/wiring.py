"""Settings -> ports. The only module that knows which adapter serves which port."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

from .config import Settings
from .core.integrity import is_test_file
from .core.model import Scope, Task
from .core.ports import Ports, Proposer
from .memory.factory import make_memory
from .memory.replay import MemoryReplayProposer
from .repair.localize import TracebackLocalizer
from .repair.mutate import MutationProposer
from .runner.pytest_runner import PytestRunner
from .safety.check import PatchSafety
from .sandbox.select import choose as choose_sandbox


def make_task(workspace: Path, settings: Settings, scope: Scope, overlays: Mapping[str, str] | None = None) -> Task:
    return Task(workspace, scope, settings.limits(), dict(overlays or {}), settings.allow_test_edits)


def make_runner(task: Task, settings: Settings) -> PytestRunner:
    return PytestRunner(task.workspace, choose_sandbox(settings.sandbox), task.limits, settings.python,
                        task.overlays, settings.pytest_args)


def make_proposers(settings: Settings) -> list[Proposer]:
    return [MutationProposer()]


def make_ports(task: Task, settings: Settings, runner: PytestRunner, cancelled: Callable[[], bool],
               now: Callable[[], float]) -> Ports:
    guard = (lambda path: False) if task.allow_test_edits else is_test_file
    memory = make_memory(settings.memory, task.workspace)
    proposers = make_proposers(settings)
    if memory is not None:  # a past fix replayed here is the cheapest candidate of all
        proposers = [MemoryReplayProposer(), *proposers]
    return Ports(
        runner=runner,
        proposers=proposers,
        localizer=TracebackLocalizer(is_test_file),
        safety=PatchSafety(),
        memory=memory,
        is_test_file=guard,
        cancelled=cancelled,
        now=now,
    )

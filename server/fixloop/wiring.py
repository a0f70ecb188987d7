"""Settings -> ports. The only module that knows which adapter serves which port."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Callable, Mapping

from .config import MemorySettings, Settings
from .core.integrity import is_test_file
from .core.model import Finding, Scope, Task
from .core.ports import Ports, Proposer, ReviewMemory
from .llm.cost import DailyBudget
from .llm.proposer import LLMProposer
from .memory.factory import make_memory
from .memory.replay import MemoryReplayProposer
from .repair.localize import SpectrumLocalizer
from .repair.mutate import MutationProposer
from .runner.pytest_runner import PytestRunner
from .safety import bandit_scan, catalog, rules
from .safety.check import PatchSafety
from .sandbox.select import choose as choose_sandbox


def make_task(workspace: Path, settings: Settings, scope: Scope, overlays: Mapping[str, str] | None = None,
              seed: int = 0) -> Task:
    return Task(workspace, scope, settings.limits(), dict(overlays or {}), settings.allow_test_edits, seed)


def make_runner(task: Task, settings: Settings) -> PytestRunner:
    return PytestRunner.open(task.workspace, choose_sandbox(settings.sandbox), task.limits, settings.python,
                        task.overlays, settings.pytest_args, warm_workers=settings.warm_workers)


def with_api_key(settings: Settings, api_key: str) -> Settings:
    """Settings carrying a key the editor passed (initializationOptions.apiKey); held in memory only."""
    if not api_key:
        return settings
    return dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, api_key=api_key))


def llm_api_key(settings: Settings) -> str:
    """The key from the editor or config first, then the environment variable the settings name."""
    return settings.llm.api_key or os.environ.get(settings.llm.api_key_env, "")


def make_proposers(settings: Settings, cancelled: Callable[[], bool] = lambda: False) -> list[Proposer]:
    offline: list[Proposer] = [MutationProposer()]
    if not settings.llm.enabled:
        return offline
    daily = DailyBudget(settings.llm.daily_budget_usd) if settings.llm.daily_budget_usd > 0 else None
    llm = LLMProposer(settings.llm, llm_api_key(settings), settings.limits(), offline=settings.offline,
                      cancelled=cancelled, daily=daily)
    return [llm, *offline] if settings.llm.first else [*offline, llm]


def make_ports(task: Task, settings: Settings, runner: PytestRunner, cancelled: Callable[[], bool],
               now: Callable[[], float]) -> Ports:
    guard = (lambda path: False) if task.allow_test_edits else is_test_file
    memory = make_memory(settings.memory, task.workspace, task.seed)
    proposers = make_proposers(settings, cancelled)
    if memory is not None:  # a past fix replayed here is the cheapest candidate of all
        proposers = [MemoryReplayProposer(), *proposers]
    return Ports(
        runner=runner,
        proposers=proposers,
        localizer=SpectrumLocalizer(runner, is_test_file),
        safety=PatchSafety(),
        memory=memory,
        is_test_file=guard,
        cancelled=cancelled,
        now=now,
    )


# ---- the language server's adapters, outside a run -------------------------------------------------
def make_editor_scanner(path: str) -> Callable[[str], list[Finding]]:
    """The safety rules for one open document, re-scanning only what each edit changed. Rules about
    generated code only stay out of the editor (`catalog.EDITOR_CODES`)."""
    scanner = rules.IncrementalScanner(path, codes=catalog.EDITOR_CODES)
    # What blocks a candidate (e.g. FL-S013) is only a warning in code a person writes.
    return lambda text: catalog.for_editor(scanner.update(text))


def editor_safety_scan(text: str, path: str) -> list[Finding]:
    """The same findings as `make_editor_scanner`, from a whole-text scan."""
    return catalog.for_editor(rules.scan(text, path, codes=catalog.EDITOR_CODES))


def bandit_findings(text: str, path: str) -> list[Finding]:
    return list(bandit_scan.scan_text(text, path))


def make_review_memory(settings: MemorySettings, workspace: Path) -> ReviewMemory | None:
    """The project's learning memory for the editor (patterns, review decisions, forget), or None when off."""
    return make_memory(settings, workspace)

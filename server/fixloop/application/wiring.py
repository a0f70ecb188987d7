"""Settings -> ports. The only module that knows which adapter serves which port."""

from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from fixloop.application.config import MemorySettings, Settings
from fixloop.core.integrity import is_test_file
from fixloop.core.model import Finding, Patch, Scope, Task, Usage
from fixloop.core.ports import (Auditor, BehaviourProbe, Localizer, Memory, Ports, Proposer, ReviewMemory, Reviewer,
                                TestRunner)
from fixloop.core.review import OfflineReviewer
from fixloop.core.goal import GoalAuthor
from fixloop.adapters.checkers.proposer import CheckerFixProposer
from fixloop.adapters.checkers.runner import CheckedLocalizer, CheckedRunner
from fixloop.adapters.graph.memory import GraphMemory
from fixloop.adapters.graph.prior import EntityPriorLocalizer
from fixloop.adapters.llm.cost import DailyBudget
from fixloop.adapters.llm.proposer import LLMProposer
from fixloop.adapters.llm.auditor import ModelAuditor
from fixloop.adapters.llm.reviewer import ModelReviewer
from fixloop.adapters.graph.factory import make_memory
from fixloop.adapters.memory.analogy_proposer import AnalogyProposer
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.replay import MemoryReplayProposer
from fixloop.adapters.mined.proposer import MinedTemplateProposer, store_loader
from fixloop.engines.repair.localize import SpectrumLocalizer
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.safety import bandit_scan, catalog, rules
from fixloop.adapters.safety.audit import RulesAuditor
from fixloop.adapters.safety.check import PatchSafety
from fixloop.adapters.safety.hooks import ON_APPLY, HookedSafety, HookSettings, describe, tell
from fixloop.adapters.sandbox.api import SandboxUnavailable
from fixloop.adapters.sandbox.backends import SandboxSettings
from fixloop.adapters.sandbox.select import choose as choose_sandbox, resolve as resolve_sandbox
from fixloop.engines.strategies.arrange import ArrangedOnUse, arrange, available, default_of
from fixloop.core.bandit import Choice, choose as choose_strategy
from fixloop.adapters.memory.outcomes import record_of

if TYPE_CHECKING:
    from fixloop.adapters.mined.desk import TemplateDesk


def make_task(workspace: Path, settings: Settings, scope: Scope, overlays: Mapping[str, str] | None = None,
              seed: int = 0) -> Task:
    return Task(workspace, scope, settings.limits(), dict(overlays or {}), settings.allow_test_edits, seed)


def make_runner(task: Task, settings: Settings) -> PytestRunner:
    return PytestRunner.open(task.workspace, choose_sandbox(settings.sandbox), task.limits, settings.python,
                        task.overlays, settings.pytest_args, warm_workers=settings.warm_workers,
                        copy_rule=settings.workspace.copy_rule())


def sandbox_in_use(settings: SandboxSettings) -> tuple[str, str]:
    """The backend runs would use with these settings, or '' and why none works (probed once, cached)."""
    try:
        return str(resolve_sandbox(settings).name), ""
    except SandboxUnavailable as e:
        return "", str(e)


def with_api_key(settings: Settings, api_key: str) -> Settings:
    """Settings carrying a key the editor passed (initializationOptions.apiKey); held in memory only."""
    if not api_key:
        return settings
    return dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, api_key=api_key))


def llm_api_key(settings: Settings) -> str:
    """The key from the editor or config first, then the environment variable the settings name."""
    return settings.llm.api_key or os.environ.get(settings.llm.api_key_env, "")


@dataclass(frozen=True)
class ProposerInputs:
    """What a proposer's factory may use."""

    settings: Settings
    memory: Memory | None
    cancelled: Callable[[], bool]


def _llm(given: ProposerInputs) -> Proposer | None:
    s = given.settings
    if not s.llm.enabled:
        return None
    daily = DailyBudget(s.llm.daily_budget_usd) if s.llm.daily_budget_usd > 0 else None
    return LLMProposer(s.llm, llm_api_key(s), s.limits(), offline=s.offline, cancelled=given.cancelled, daily=daily)


def _mined(demoted: bool) -> Callable[[ProposerInputs], Proposer | None]:
    """The approved mined templates of the memory's store: those that keep working, or those that lost their place."""
    def make(given: ProposerInputs) -> Proposer | None:
        memory = given.memory
        if memory is None:
            return None
        load = store_loader(memory.store) if isinstance(memory, LearningMemory) else list
        return MinedTemplateProposer(load, demoted)
    return make


def make_goal_author(settings: Settings, cancelled: Callable[[], bool] = lambda: False) -> GoalAuthor:
    """Who writes a goal's questions, spec and reproduction test: Claude when a key is set (and the run is not
    offline), with the offline author as its fallback for any step the model cannot do; else the offline one."""
    from fixloop.application.testgen.goal_offline import OfflineAuthor
    from fixloop.adapters.llm.goal_author import ClaudeGoalAuthor

    offline = OfflineAuthor()
    s = settings
    key = llm_api_key(s)
    if not s.llm.enabled or s.offline or not key:
        return offline
    daily = DailyBudget(s.llm.daily_budget_usd) if s.llm.daily_budget_usd > 0 else None
    return ClaudeGoalAuthor(s.llm, key, s.limits(), offline, cancelled=cancelled, daily=daily)


def after_spending(settings: Settings, spent: Usage) -> Settings:
    """The settings of a goal's fix run: what the goal author spent comes off the run's token and dollar budget."""
    if not spent.tokens and not spent.cost_usd:
        return settings
    return dataclasses.replace(settings, max_tokens=max(0, settings.max_tokens - spent.tokens),
                               max_cost_usd=max(0.0, settings.max_cost_usd - spent.cost_usd))


@dataclass(frozen=True)
class ProposerKind:
    name: str  # the proposer's own `name`, as the run log and the operator statistics say it
    make: Callable[[ProposerInputs], Proposer | None]  # None: these settings leave it out
    rank: Callable[[Settings], int]  # cheapest first: the loop asks proposers in this order


# Every proposer a run may use. Adding one is an entry here plus its module.
PROPOSERS: tuple[ProposerKind, ...] = (
    # A template a person approved is a vetted generalisation of several fixes: tried before anything else.
    ProposerKind("template", _mined(demoted=False), lambda s: -1),
    # A past fix replayed here is the cheapest candidate of all.
    ProposerKind("memory", lambda given: MemoryReplayProposer() if given.memory is not None else None,
                 lambda s: 0),
    # One past fix carried over to differently written code: a few candidates per fix, before the engine.
    ProposerKind("analogy", lambda given: AnalogyProposer() if given.memory is not None else None,
                 lambda s: 0),
    ProposerKind("mutation", lambda given: MutationProposer(), lambda s: 2),
    # A template that kept failing lost its place: after the generic operators, before the model.
    ProposerKind("template", _mined(demoted=True), lambda s: 2),
    ProposerKind("llm", _llm, lambda s: 1 if s.llm.first else 3),  # `llm.first`: before the offline engine
)


def make_proposers(settings: Settings, cancelled: Callable[[], bool] = lambda: False,
                   memory: Memory | None = None) -> list[Proposer]:
    """The proposers these settings use, cheapest first (`PROPOSERS`)."""
    given = ProposerInputs(settings, memory, cancelled)
    ordered = sorted(PROPOSERS, key=lambda kind: kind.rank(settings))  # stable: the table's order breaks ties
    return [p for p in (kind.make(given) for kind in ordered) if p is not None]


def make_ports(task: Task, settings: Settings, runner: PytestRunner, cancelled: Callable[[], bool],
               now: Callable[[], float], on_choice: Callable[[Choice], None] = lambda choice: None) -> Ports:
    """The run's ports, with its proposers in the order of the strategy chosen for it (`strategies`). The
    choice is made when the run first asks for its proposers (after the baseline) and handed to `on_choice`;
    the memory's store opens in the background from now on, so the baseline does not wait for it."""
    guard = (lambda path: False) if task.allow_test_edits else is_test_file
    memory = make_memory(settings.memory, task.workspace, task.seed)
    if memory is not None:
        threading.Thread(target=memory.warm, name="fixloop-memory-open", daemon=True).start()
    spectrum = SpectrumLocalizer(runner, is_test_file)
    # With the code graph: a history prior on suspects, and the coverage kept as test -> function edges.
    localizer: Localizer = EntityPriorLocalizer(spectrum, memory) if isinstance(memory, GraphMemory) else spectrum
    proposers = make_proposers(settings, cancelled, memory)
    tested: TestRunner = runner
    leading: list[Proposer] = []
    if settings.checks:  # findings are targets too: the checker answers them, its own fixes are tried first
        tested = checked = CheckedRunner(runner, settings.checks, is_test_file, frozenset(settings.check_files))
        localizer = CheckedLocalizer(localizer, checked)
        leading = [CheckerFixProposer(checked.findings, checked.tested)]

    def arranged() -> list[Proposer]:
        # The model leads only when it can answer: a key, and not offline.
        allowed = [s for s in available(proposers)
                   if s != "model-first" or (llm_api_key(settings) and not settings.offline)]
        learning = memory is not None and settings.strategy == "auto" and len(allowed) > 1
        choice = choose_strategy(allowed, record_of(memory) if learning else {}, task.seed, settings.strategy,
                                 learning=memory is not None, default=default_of(proposers))
        on_choice(choice)
        return leading + arrange(proposers, choice.strategy, breaker_repeats=settings.breaker_repeats)

    ports = Ports(
        runner=tested,
        proposers=ArrangedOnUse(arranged),
        reviewer=make_reviewer(settings, proposers, cancelled, runner),
        localizer=localizer,
        # The user's deny patterns and pre_candidate hook after the rules: a veto skips the candidate.
        safety=HookedSafety(PatchSafety(), settings.hooks, task.workspace) if settings.hooks.any else PatchSafety(),
        memory=memory,
        is_test_file=guard,
        cancelled=cancelled,
        now=now,
    )
    return ports


def make_reviewer(settings: Settings, proposers: Sequence[Proposer], cancelled: Callable[[], bool],
                  probe: BehaviourProbe | None = None) -> Reviewer | None:
    """The model's review when the model can be asked (its own model if `llm.roles.reviewer.model`, the coder's
    budgets), else the offline one (which compares the fixes' values through `probe`, the runner); none with
    `review.enabled = false`."""
    if not settings.review.enabled:
        return None
    coder = next((p for p in proposers if isinstance(p, LLMProposer) and p.reachable), None)
    if coder is None:
        return OfflineReviewer(probe)
    return ModelReviewer(settings.llm, llm_api_key(settings), coder.meter, cancelled, coder.log_call)



def make_auditor(settings: Settings, proposers: Sequence[Proposer], cancelled: Callable[[], bool]) -> Auditor | None:
    """With `audit.enabled`: the safety rules and bandit on the fix, then the model's own audit when the model
    can be asked (its own model if `llm.roles.auditor.model`, the coder's budgets); none otherwise."""
    if not settings.audit.enabled:
        return None
    offline = RulesAuditor()
    coder = next((p for p in proposers if isinstance(p, LLMProposer) and p.reachable), None)
    if coder is None:
        return offline
    return ModelAuditor(settings.llm, llm_api_key(settings), coder.meter, offline, cancelled, coder.log_call)

# ---- the language server's adapters, outside a run -------------------------------------------------
def doctor(settings: Settings) -> tuple[str, bool]:
    """`fixloop doctor`: which sandbox backends work here and what each guarantees, then the memory and the
    user's hooks; ok is the sandbox's alone (the memory is an aid: it never fails the doctor)."""
    from fixloop.adapters.memory.doctor import check as check_memory
    from fixloop.adapters.sandbox.doctor import render

    text, ok = render(settings.sandbox)
    memory_lines, _ = check_memory(settings.memory)
    return text + "\n" + "\n".join(memory_lines + describe(settings.hooks)), ok


def tell_applied(hooks: HookSettings, patch: Patch, workspace: Path) -> str:
    """The user's on_apply hook told of what the editor applied ('' when none is set)."""
    return tell(ON_APPLY, hooks, patch, workspace)


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


def make_template_desk(settings: MemorySettings) -> "TemplateDesk":
    """The user's (or team's) mined templates, for the editor to list, approve and reject."""
    from fixloop.adapters.memory.factory import make_store
    from fixloop.adapters.mined.desk import TemplateDesk

    return TemplateDesk(make_store(settings), "editor")

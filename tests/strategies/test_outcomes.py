"""Strategy outcomes in a real LanceDB memory, and the run's ports arranged by the strategy chosen from them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.core.model import Outcome, Scope, Status, Usage
from fixloop.adapters.graph.factory import make_memory
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.engines.strategies.arrange import Part
from fixloop.core.bandit import MIN_RUNS, Choice, reward
from fixloop.adapters.memory.outcomes import STRATEGY_CLASS, record, record_of
from fixloop.application.wiring import make_ports, make_task
from tests.core.test_loop import SOURCE, double_runner


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return dataclasses.replace(Settings(), offline=True, memory=MemorySettings(uri=str(tmp_path / "memory")))


def memory_of(settings: Settings, tmp_path: Path) -> LearningMemory:
    memory = make_memory(settings.memory, tmp_path)
    assert isinstance(memory, LearningMemory)
    return memory


def test_outcomes_are_recorded_and_read_back(settings: Settings, tmp_path: Path) -> None:
    memory = memory_of(settings, tmp_path)
    assert record(memory, "mutation-first", Outcome(Status.FIXED, "r1", candidates_evaluated=1))
    assert record(memory, "mutation-first", Outcome(Status.GAVE_UP, "r2", candidates_evaluated=40))
    assert record(memory, "memory-first", Outcome(Status.FIXED, "r3", candidates_evaluated=10, usage=Usage(cost_usd=0.02)))
    for status in (Status.NOTHING_TO_FIX, Status.FLAKY, Status.CANCELLED, Status.ERROR):
        assert not record(memory, "memory-first", Outcome(status, "r4"))
    assert not record(None, "memory-first", Outcome(Status.FIXED, "r5"))
    got = record_of(memory_of(settings, tmp_path))  # a new connection sees what the last one wrote
    assert (got["mutation-first"].runs, got["mutation-first"].reward) == (2, pytest.approx(1.0))
    assert (got["memory-first"].runs, got["memory-first"].reward) == (1, pytest.approx(reward(True, 10, 0.02), abs=1e-5))
    # The operator priors read one real error class; the strategy rows sit in one no exception has.
    rows = memory.store.rows("operator_stats", "", ["error_class", "source"])
    assert {(r["error_class"], r["source"]) for r in rows} == {(STRATEGY_CLASS, "strategy")}


def ports_for(settings: Settings, tmp_path: Path, seed: int = 1):  # type: ignore[no-untyped-def]
    task = make_task(tmp_path, settings, Scope(), seed=seed)
    runner = double_runner({"m.py": SOURCE})
    chosen: list[Choice] = []
    ports = make_ports(task, settings, runner, lambda: False, lambda: 0.0, chosen.append)  # type: ignore[arg-type]
    assert chosen == []  # made when the run first asks for its proposers: after its baseline
    assert [p.name for p in ports.proposers] and len(chosen) == 1
    assert ports.proposers[0] is list(ports.proposers)[0] and len(chosen) == 1  # once
    return ports, chosen[0]


def test_a_pinned_strategy_leads_the_run(settings: Settings, tmp_path: Path) -> None:
    ports, choice = ports_for(dataclasses.replace(settings, strategy="mutation-first"), tmp_path)
    assert (choice.strategy, choice.reason) == ("mutation-first", "pinned")
    assert isinstance(ports.proposers[0], Part) and ports.proposers[0].name == "mutation"
    # the mined templates (nothing approved yet: they offer nothing) keep their places
    assert [p.name for p in ports.proposers] == ["mutation", "template", "memory", "analogy", "mutation", "template",
                                                   "llm"]


def test_the_model_leads_only_with_a_key_and_online(settings: Settings, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    _, choice = ports_for(dataclasses.replace(settings, strategy="model-first"), tmp_path)  # offline
    assert choice.strategy == "memory-first" and "model-first" in choice.note
    ports, choice = ports_for(dataclasses.replace(settings, strategy="model-first", offline=False), tmp_path)
    assert choice.strategy == "model-first" and ports.proposers[0].name == "llm"


def test_an_empty_memory_keeps_todays_order_and_no_memory_never_explores(settings: Settings, tmp_path: Path) -> None:
    for seed in range(30):
        ports, choice = ports_for(settings, tmp_path, seed)
        assert (choice.strategy, choice.reason) == ("memory-first", "default")
    off = dataclasses.replace(settings, memory=MemorySettings(enabled=False))
    # Without a memory the engine leads today's order, and nothing is learned, so nothing moves it.
    assert {(c.strategy, c.reason) for c in (ports_for(off, tmp_path, seed)[1] for seed in range(30))} == {
        ("mutation-first", "default")}
    ports, _ = ports_for(off, tmp_path)
    assert [p.name for p in ports.proposers] == ["mutation", "llm"]


def test_a_strong_record_moves_the_choice(settings: Settings, tmp_path: Path) -> None:
    memory = memory_of(settings, tmp_path)
    for i in range(3 * MIN_RUNS):
        record(memory, "mutation-first", Outcome(Status.FIXED, f"m{i}", candidates_evaluated=1))
        record(memory, "memory-first", Outcome(Status.GAVE_UP, f"d{i}", candidates_evaluated=50))
    chosen = [ports_for(settings, tmp_path, seed)[1] for seed in range(20)]
    assert sum(c.strategy == "mutation-first" for c in chosen) >= 16
    assert ports_for(settings, tmp_path, 5)[1] == ports_for(settings, tmp_path, 5)[1]  # seeded

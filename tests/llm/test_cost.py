"""Prices, the per-run meter and the daily budget file."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from fixloop.application.config import LLMSettings
from fixloop.core.model import Limits, Usage
from fixloop.adapters.llm.cost import BudgetExceeded, DailyBudget, Meter, Prices, usage_from_api

from .fake_anthropic import FakeAnthropic
from .harness import llm_proposer


def test_prices_from_settings_and_api_usage() -> None:
    prices = Prices.from_settings(LLMSettings(input_price_per_mtok=3, output_price_per_mtok=15,
                                              cache_read_price_per_mtok=0.3, cache_write_price_per_mtok=3.75))
    raw = SimpleNamespace(input_tokens=1000, output_tokens=200, cache_read_input_tokens=5000,
                          cache_creation_input_tokens=None)
    u = usage_from_api(raw, prices)
    assert (u.llm_calls, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) == (1, 1000, 200, 5000, 0)
    assert u.cost_usd == pytest.approx((1000 * 3 + 200 * 15 + 5000 * 0.3) / 1e6)
    assert usage_from_api(None, prices) == Usage(1)


def test_meter_stops_after_the_budget_is_exceeded() -> None:
    meter = Meter(Limits(max_tokens=100, max_cost_usd=1.0))
    meter.add(Usage(1, 100, 0))
    meter.check()  # at the budget, not over it
    meter.add(Usage(1, 1, 0))
    with pytest.raises(BudgetExceeded, match="token budget of 100 exceeded"):
        meter.check()


def test_daily_budget_persists_across_runs_and_resets_the_next_day(tmp_path: Path) -> None:
    path = tmp_path / "data" / "llm-spend.json"
    day = ["2026-11-25"]
    a = DailyBudget(0.05, path, lambda: day[0])
    a.add(Usage(1, 10, 0, cost_usd=0.03))
    b = DailyBudget(0.05, path, lambda: day[0])  # a later run reads what the first one spent
    assert b.spent() == pytest.approx(0.03)
    b.check()
    b.add(Usage(1, 10, 0, cost_usd=0.03))
    with pytest.raises(BudgetExceeded, match="daily budget of \\$0.05 reached"):
        DailyBudget(0.05, path, lambda: day[0]).check()
    assert json.loads(path.read_text())["tokens"] == 20
    day[0] = "2026-11-26"
    assert DailyBudget(0.05, path, lambda: day[0]).spent() == 0.0


def test_a_corrupt_spend_file_counts_as_nothing_spent(tmp_path: Path) -> None:
    path = tmp_path / "llm-spend.json"
    path.write_text("{not json")
    budget = DailyBudget(1.0, path)
    assert budget.spent() == 0.0
    budget.add(Usage(1, 1, 0, cost_usd=0.5))
    assert budget.spent() == pytest.approx(0.5)


def test_an_exhausted_daily_budget_makes_no_request(fake: FakeAnthropic, tmp_path: Path) -> None:
    from fixloop.core.model import TestReport as Report
    from fixloop.core.ports import ProposalContext

    path = tmp_path / "llm-spend.json"
    daily = DailyBudget(0.01, path)
    daily.add(Usage(1, 1, 0, cost_usd=0.02))
    llm = llm_proposer(fake.url, daily=daily)
    assert list(llm.propose(ProposalContext({}, Report(), ()))) == []
    assert fake.requests == [] and "daily budget of $0.01 reached" in llm.notes[0]

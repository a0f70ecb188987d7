"""The strategy bandit: seeded, pinned by the user, today's order while the record is thin, bounded exploring."""

from __future__ import annotations

from collections import Counter

import pytest

from fixloop.core.bandit import EXPLORE_SHARE, MIN_RUNS, Choice, Tally, choose, reward
from fixloop.core.strategies import DEFAULT, STRATEGIES

ALL = list(STRATEGIES)
OFFLINE = ["memory-first", "mutation-first"]  # no key, no approved template


def record(**tallies: tuple[int, float]) -> dict[str, Tally]:
    return {name.replace("_", "-"): Tally(runs, total) for name, (runs, total) in tallies.items()}


RICH = record(memory_first=(40, 30.0), mutation_first=(40, 8.0), template_first=(20, 15.0), model_first=(10, 2.0))


def test_same_record_and_seed_give_the_same_choice() -> None:
    for seed in range(200):
        assert choose(ALL, RICH, seed) == choose(ALL, RICH, seed)
    # ...and the seed matters: not every seed gives the same strategy.
    assert len({choose(ALL, RICH, seed).strategy for seed in range(200)}) > 1


def test_a_pinned_strategy_is_used_as_is() -> None:
    for seed in range(50):
        got = choose(ALL, RICH, seed, pin="mutation-first")
        assert (got.strategy, got.reason, got.note) == ("mutation-first", "pinned", "")


def test_a_pinned_strategy_this_run_cannot_use_falls_back_to_todays_order_and_says_so() -> None:
    got = choose(OFFLINE, RICH, 3, pin="model-first")
    assert got.strategy == DEFAULT and got.reason == "default"
    assert "model-first" in got.note and DEFAULT in got.note


def test_without_a_memory_today_s_order_always() -> None:
    assert all(choose(ALL, RICH, seed, learning=False) == Choice(DEFAULT, "default") for seed in range(300))


def test_a_thin_memory_never_explores() -> None:
    # Today's order has fewer than MIN_RUNS runs, even though mutation-first looks perfect on its few runs.
    thin = record(memory_first=(MIN_RUNS - 1, 0.0), mutation_first=(MIN_RUNS - 1, float(MIN_RUNS - 1)))
    assert all(choose(OFFLINE, thin, seed) == Choice(DEFAULT, "default") for seed in range(1000))
    assert all(choose(ALL, {}, seed) == Choice(DEFAULT, "default") for seed in range(1000))


def test_little_data_keeps_today_s_order_except_a_bounded_share_of_exploring_runs() -> None:
    # Only today's order has MIN_RUNS; mutation-first looks perfect on its few runs.
    thin = record(memory_first=(MIN_RUNS, 0.0), mutation_first=(MIN_RUNS - 1, float(MIN_RUNS - 1)))
    choices = [choose(OFFLINE, thin, seed) for seed in range(2000)]
    reasons = Counter(c.reason for c in choices)
    assert set(reasons) == {"default", "explore"}
    assert all(c.strategy == DEFAULT for c in choices if c.reason == "default")
    assert abs(reasons["explore"] / len(choices) - EXPLORE_SHARE) < 0.03


def test_exploring_goes_to_the_least_tried_strategy() -> None:
    rec = record(memory_first=(50, 25.0), mutation_first=(9, 3.0), template_first=(2, 1.0), model_first=(7, 1.0))
    explored = {c.strategy for c in (choose(ALL, rec, seed) for seed in range(1000)) if c.reason == "explore"}
    assert explored == {"template-first"}


def test_with_enough_runs_the_better_strategy_is_chosen_most_of_the_time() -> None:
    better = record(memory_first=(30, 6.0), mutation_first=(30, 24.0))
    worse = record(memory_first=(30, 24.0), mutation_first=(30, 6.0))
    picks = Counter(choose(OFFLINE, better, seed).strategy for seed in range(1000))
    assert picks["mutation-first"] > 800
    picks = Counter(choose(OFFLINE, worse, seed).strategy for seed in range(1000))
    assert picks[DEFAULT] > 850  # the rest: the exploring share
    exploit = choose(OFFLINE, better, next(s for s in range(100) if choose(OFFLINE, better, s).reason == "exploit"))
    assert set(exploit.draws) == {"memory-first", "mutation-first"}


def test_a_strategy_needs_min_runs_before_its_record_counts() -> None:
    rec = record(memory_first=(30, 6.0), mutation_first=(MIN_RUNS - 1, float(MIN_RUNS - 1)))
    assert {c.strategy for c in (choose(OFFLINE, rec, s) for s in range(500)) if c.reason != "explore"} == {DEFAULT}


def test_the_default_is_today_s_order_as_given() -> None:
    rec = record(template_first=(30, 20.0), memory_first=(2, 2.0))
    got = [choose(["template-first", "memory-first"], rec, s, default="template-first") for s in range(300)]
    assert {c.strategy for c in got if c.reason == "default"} == {"template-first"}
    assert {c.strategy for c in got if c.reason == "explore"} == {"memory-first"}


def test_only_available_strategies_are_chosen() -> None:
    for seed in range(500):
        assert choose(OFFLINE, RICH, seed).strategy in OFFLINE


@pytest.mark.parametrize(("fixed", "candidates", "cost", "expected"), [
    (False, 1, 0.0, 0.0), (True, 1, 0.0, 1.0), (True, 0, 0.0, 1.0),
])
def test_reward_bounds(fixed: bool, candidates: int, cost: float, expected: float) -> None:
    assert reward(fixed, candidates, cost) == pytest.approx(expected)


def test_reward_falls_with_candidates_and_cost() -> None:
    values = [reward(True, n) for n in (1, 2, 5, 10, 100, 300)]
    assert values == sorted(values, reverse=True) and 0 < values[-1] < values[0]
    assert reward(True, 3, 0.05) < reward(True, 3, 0.0)
    assert reward(True, 10) == pytest.approx(0.3028, abs=1e-3)


def test_tally_keeps_rewards_in_bounds() -> None:
    t = Tally().add(1.7).add(-2.0).add(0.5)
    assert (t.runs, t.reward) == (3, 1.5)
    assert 0 < t.mean() < 1

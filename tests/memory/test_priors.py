"""Learned priors stay near the built-in order, never sample the order, and explore within a bound."""

from __future__ import annotations

import numpy as np

from fixloop.core.model import Attempt, FileChange, Patch, Suspect
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.priors import (
    EXPLORE_SHARE,
    MAX_FACTOR,
    MIN_FACTOR,
    Posterior,
    factors,
    learned_priors,
)
from fixloop.engines.repair.mutate import MutationProposer, run_priors
from fixloop.core.ports import EXPLORE_PREFIX
from fixloop.engines.repair.search import EXPLORE_MAX, explore_first, ranked, single_candidates

from .conftest import failing_report

SRC = ("LIMIT = 10\n\n\ndef price(q, extra):\n    total = q * 2 - extra\n    if q > LIMIT:\n"
       "        total = total - 1\n    return total + extra\n")


def _post(**record: tuple[float, float]) -> Posterior:
    post = Posterior()
    for op, (s, f) in record.items():
        post.observe(op, True, s) if s else None
        post.observe(op, False, f) if f else None
    return post


def test_little_evidence_leaves_the_built_in_order_and_more_moves_it_a_bounded_way() -> None:
    # What one fixed bug elsewhere leaves: a win and a few misses. Not enough to move anything.
    assert factors(_post(comparison_swap=(1, 0), arithmetic_swap=(0, 3))) == {}
    wins = factors(_post(comparison_swap=(3, 2)))["comparison_swap"]
    misses = factors(_post(comparison_swap=(0, 5)))["comparison_swap"]
    assert 1.0 < wins <= MAX_FACTOR and MIN_FACTOR <= misses < 1.0
    many = factors(_post(comparison_swap=(50, 0), delete_statement=(0, 500)))
    assert many == {"comparison_swap": MAX_FACTOR, "delete_statement": MIN_FACTOR}  # bounded either way
    assert factors(Posterior()) == {} and learned_priors(Posterior(), np.random.default_rng(1)) == {}
    thin = _post(comparison_swap=(1, 0), arithmetic_swap=(0, 2))  # nothing learned: nothing to explore either
    assert all(learned_priors(thin, np.random.default_rng(seed)) == {} for seed in range(100))


def test_the_same_seed_gives_the_same_priors_and_a_bounded_share_explores() -> None:
    post = _post(comparison_swap=(4, 2), arithmetic_swap=(0, 3), bound_nudge=(1, 4))
    for seed in range(20):
        assert learned_priors(post, np.random.default_rng(seed)) == learned_priors(post, np.random.default_rng(seed))
    runs = [learned_priors(post, np.random.default_rng(seed)) for seed in range(2000)]
    exploring = sum(any(k.startswith(EXPLORE_PREFIX) for k in r) for r in runs) / len(runs)
    assert abs(exploring - EXPLORE_SHARE) < 0.03
    # Exploring or not, the order's factors are the posterior means.
    assert all({k: v for k, v in r.items() if not k.startswith(EXPLORE_PREFIX)} == factors(post) for r in runs)


def test_exploration_puts_at_most_a_few_candidates_ahead_of_the_order() -> None:
    scores = {line: 1.0 - 0.05 * line for line in range(4, 9)}
    base = ranked(single_candidates("shop/p.py", SRC, scores, {}))
    assert len(base) > 10
    # A draw that loves the operator the order likes least (of those with enough candidates to fill the front).
    last_op = next(c.operator for c in reversed(base) if sum(x.operator == c.operator for x in base) >= EXPLORE_MAX)
    draw = {EXPLORE_PREFIX + last_op: 50.0}
    explored = explore_first(base, draw)
    assert sorted(map(id, explored)) == sorted(map(id, base))
    ahead = [c for c in explored[:EXPLORE_MAX]]
    assert all(c.operator == last_op for c in ahead)
    assert explored[EXPLORE_MAX:] == [c for c in base if c not in ahead]  # the rest keeps the order
    assert explore_first(base, {"comparison_swap": 1.2}) == base  # no draw: no exploring


def test_a_replay_that_failed_gives_its_operator_no_boost_elsewhere() -> None:
    report = failing_report("tests/test_p.py::test_ten", "assert 20 == 19", "tests/test_p.py", 5)
    priors = {"comparison_swap": MAX_FACTOR, EXPLORE_PREFIX + "comparison_swap": 2.0, "arithmetic_swap": 0.9}
    ctx = ProposalContext(sources={"shop/p.py": SRC}, baseline=report, target_tests=(report.failed[0].nodeid,),
                          suspects=tuple(Suspect("shop/p.py", line, 1.0) for line in (5, 6, 7, 8)), priors=priors)
    assert run_priors(ctx) == priors
    replayed = Patch((FileChange("shop/p.py", SRC, SRC.replace("q > LIMIT", "q >= LIMIT")),), "memory", "comparison_swap")
    ctx.attempts.append(Attempt(1, replayed, "failed"))
    assert run_priors(ctx) == {"comparison_swap": 1.0, EXPLORE_PREFIX + "comparison_swap": 1.0, "arithmetic_swap": 0.9}
    # With the boost gone the engine's order is the built-in one (bar the demoted operator).
    built_in = [p.summary for p in MutationProposer().propose(
        ProposalContext(sources=ctx.sources, baseline=report, target_tests=ctx.target_tests, suspects=ctx.suspects,
                        priors={"arithmetic_swap": 0.9}))][:15]
    assert [p.summary for p in MutationProposer().propose(ctx)][:15] == built_in


def test_a_teammates_hostile_statistics_move_the_priors_no_further_than_the_bounds(memory) -> None:
    """Rows as a pull writes them into the cache (upsert): weights that are no number, huge or negative, and
    an operator posing as an exploration key. The priors stay finite and bounded; the strategy record too."""
    import math

    from fixloop.adapters.memory.priors import EXPLORE_RANGE
    from fixloop.adapters.memory.outcomes import record_of

    def row(n: int, operator: str, success: bool, weight: float, error_class: str = "AssertionError",
            source: str = "test") -> dict:
        return {"id": f"hostile-{n}", "project": "", "error_class": error_class, "operator": operator,
                "success": success, "weight": weight, "source": source, "run_id": "x", "time": 1.0}

    weights = [math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0]
    rows = [row(n, "comparison_swap", True, w) for n, w in enumerate(weights * 3)]
    rows += [row(100 + n, "arithmetic_swap", False, w) for n, w in enumerate(weights * 3)]
    rows += [row(200 + n, EXPLORE_PREFIX + "delete_statement", True, 1e9) for n in range(50)]
    rows += [row(300 + n, "memory-first", True, w, "(strategy)", "strategy") for n, w in enumerate(weights)]
    memory.store.upsert("operator_stats", rows)
    report = failing_report("tests/test_t.py::test_x", "assert 1 == 2", "tests/test_t.py", 5)
    for seed in range(30):  # exploring runs included
        memory._rng = np.random.default_rng(seed)
        priors = memory.priors(report)
        assert priors and memory.broken == ""
        learned = {k: v for k, v in priors.items() if not k.startswith(EXPLORE_PREFIX)}
        assert learned == {"comparison_swap": MAX_FACTOR, "arithmetic_swap": MIN_FACTOR}  # the bounds, no further
        assert all(EXPLORE_RANGE[0] <= v <= EXPLORE_RANGE[1] for v in priors.values() if v not in learned.values())
        assert EXPLORE_PREFIX + "delete_statement" not in priors  # a row is never an exploration key
    tally = record_of(memory)["memory-first"]
    assert tally.runs == len(weights) and 0.0 <= tally.reward <= tally.runs and math.isfinite(tally.mean())

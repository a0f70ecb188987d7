"""Every limit a run can end on, checked here and only here (pure: the loop passes in what it counted).

Each check returns (the setting whose limit was reached, the message), or None while the run may go on.
"""

from __future__ import annotations

from typing import Iterable

from fixloop.core.model import Limits, Usage
from fixloop.core.ports import Metered

SEARCH_FLOOR = 30.0  # seconds a run may always search for, however short the baseline (a small suite's fix may need 100 candidates)


def usage(proposers: Iterable[object]) -> Usage:
    total = Usage()
    for p in proposers:
        if isinstance(p, Metered):
            total = total + p.usage()
    return total


def reached(limits: Limits, elapsed: float, candidates: int, iterations: int, spent: Usage) -> tuple[str, str] | None:
    if elapsed > limits.wall_seconds:
        return "wall_seconds", f"wall-time limit of {limits.wall_seconds:.0f} s reached"
    if candidates >= limits.max_candidates:
        return "max_candidates", f"candidate limit of {limits.max_candidates} reached"
    if iterations >= limits.max_iterations:
        return "max_iterations", f"iteration limit of {limits.max_iterations} reached"
    if spent.tokens > limits.max_tokens:
        return "max_tokens", f"token budget of {limits.max_tokens} exceeded ({spent.tokens} spent)"
    if spent.cost_usd > limits.max_cost_usd:
        return "max_cost_usd", f"cost budget of ${limits.max_cost_usd:.2f} exceeded (${spent.cost_usd:.4f} spent)"
    return None


def search_budget(factor: float, baseline_seconds: float) -> float | None:
    """The seconds of run the offline search may take: `factor` baselines, at least SEARCH_FLOOR (None: no
    such limit)."""
    return max(SEARCH_FLOOR, factor * baseline_seconds) if factor > 0 else None


def search_time_up(limits: Limits, baseline_seconds: float, elapsed: float) -> tuple[str, str] | None:
    """The offline search ends once the run has taken `search_factor` times the baseline (at least
    SEARCH_FLOOR s): a bug it has not fixed by then is seldom fixed later, and the user waits on it; the
    whole run counts, so a failed run ends within a known multiple of one plain run of the suite
    (0: no such limit)."""
    factor = limits.search_factor
    budget = search_budget(factor, baseline_seconds)
    if budget is None or elapsed <= budget:
        return None
    return "search_factor", (f"the offline search stopped when the run had taken {budget:.0f} s "
                             f"(search_factor = {factor:g} times the baseline's {baseline_seconds:.1f} s)")

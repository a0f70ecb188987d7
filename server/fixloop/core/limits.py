"""Every limit a run can end on, checked here and only here (pure: the loop passes in what it counted).

Each check returns (the setting whose limit was reached, the message), or None while the run may go on.
"""

from __future__ import annotations

import math
from typing import Iterable

from fixloop.core.model import Limits, Usage
from fixloop.core.ports import Metered

# However short the baseline, a run may search for SEARCH_FLOOR s, and on until it has tried SEARCH_CANDIDATES
# candidates (where a fix's rank in the order lies on most bugs: a slow interpreter or hanging candidates must
# not cut it short), but for no more than SEARCH_CEILING s: on a one-second suite a failed run should end
# within about ten plain runs of it, and its end message says how to give it longer.
SEARCH_FLOOR = 10.0
SEARCH_CANDIDATES = 100
SEARCH_CEILING = 30.0


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


def search_budget(factor: float, baseline_seconds: float, tried: int = SEARCH_CANDIDATES) -> float | None:
    """The seconds of run the offline search may take, `tried` candidates in: `factor` baselines, at least
    SEARCH_FLOOR, and SEARCH_CEILING while fewer than SEARCH_CANDIDATES were tried (None: no such limit)."""
    if factor <= 0:
        return None
    budget = max(SEARCH_FLOOR, factor * baseline_seconds)
    return budget if tried >= SEARCH_CANDIDATES else max(budget, SEARCH_CEILING)


def factor_for_twice(factor: float, baseline_seconds: float, took: float) -> float:
    """The `search_factor` that gives a search that ended after `took` s of run twice that: twice the factor,
    or more where a floor was what governed (twice a factor under the floor may still give less)."""
    if baseline_seconds <= 0:
        return factor * 2
    return max(factor * 2, math.ceil(2 * took / baseline_seconds))


def search_time_up(limits: Limits, baseline_seconds: float, elapsed: float, tried: int,
                   since: float = 0.0) -> tuple[str, str] | None:
    """The offline search ends once the run has taken `search_factor` times the baseline (search_budget): a bug
    it has not fixed by then is seldom fixed later, and the user waits on it; the whole run counts, so a failed
    run ends within a known multiple of one plain run of the suite (0: no such limit). A fix of some of the
    targets found `since` seconds into the run starts the count again for the others (one search for each
    fault: a lint finding, a type error and a failing test are three; core/stacking.py bounds how many)."""
    factor = limits.search_factor
    budget = search_budget(factor, baseline_seconds, tried)
    if budget is None or elapsed - since <= budget:
        return None
    after = f", {elapsed - since:.0f} s after its last fix of some targets" if since else ""
    return "search_factor", (f"the offline search stopped after {tried} candidates, when the run had taken "
                             f"{elapsed:.0f} s{after} (search_factor = {factor:g} times the baseline's {baseline_seconds:.1f} s; "
                             f"any run may search {SEARCH_FLOOR:.0f} s, and up to {SEARCH_CEILING:.0f} s for its first "
                             f"{SEARCH_CANDIDATES} candidates)")

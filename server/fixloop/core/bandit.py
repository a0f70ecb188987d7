"""Choosing a run's strategy: a seeded, bounded bandit over the outcomes the memory recorded.

A strategy only says which proposer leads the run (`names.LEADS`); every run keeps the same proposers,
and a lead may put at most `LEAD_MAX` candidates ahead of today's order (`arrange`), so no strategy
makes a fix dearer than that. The spirit is that of the learned operator priors (memory/priors.py):
today's order (the strategy of its first proposer: memory-first, or template-first once a mined template
is approved, mutation-first without a memory) is what a run uses until the record says otherwise, and
little data never moves it:

- a pinned strategy (the user's `strategy` setting; a project file may not choose it) is used as is;
- while today's order has fewer than `MIN_RUNS` recorded runs, it is used: a thin memory never explores;
- then a seeded share `EXPLORE_SHARE` of runs tries the available strategy with the fewest recorded
  runs, so every strategy gathers a record at a bounded cost;
- the other runs use today's order until it and at least one other strategy each have `MIN_RUNS`
  recorded runs; from then on a Thompson draw from each such strategy's Beta posterior over its reward
  (1 for a fix at the first candidate, less for each further candidate and each cent, 0 unfixed)
  chooses, today's order winning ties.

Every draw comes from a generator seeded by the run's seed: the same record and seed give the same
strategy. Pure: a record in, a choice out.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from fixloop.core.strategies import AUTO, DEFAULT, STRATEGIES

MIN_RUNS = 5  # recorded runs of a strategy before its record may choose it
EXPLORE_SHARE = 0.1  # runs that try the least-tried available strategy
LEAD_MAX = 3  # candidates a strategy's leading proposer may put ahead of today's order


@dataclass(frozen=True)
class Tally:
    """A strategy's record: runs and the sum of their rewards (each in [0, 1])."""

    runs: int = 0
    reward: float = 0.0

    def beta(self) -> tuple[float, float]:
        """Beta(1, 1) updated with fractional successes: the reward counts as a success, the rest as a miss."""
        return 1.0 + self.reward, 1.0 + max(self.runs - self.reward, 0.0)

    def mean(self) -> float:
        a, b = self.beta()
        return a / (a + b)

    def add(self, reward: float) -> "Tally":
        # A teammate's row is untrusted: a reward that is no finite number counts as nothing won.
        return Tally(self.runs + 1, self.reward + (min(max(reward, 0.0), 1.0) if math.isfinite(reward) else 0.0))


@dataclass(frozen=True)
class Choice:
    strategy: str
    reason: str  # pinned | default | explore | exploit
    draws: Mapping[str, float] = field(default_factory=dict)
    note: str = ""  # for the user, e.g. a pinned strategy this run cannot use

    def log_fields(self) -> dict[str, object]:
        """What the run log's `started` event and summary say about it (history reads `strategy`)."""
        out: dict[str, object] = {"strategy": self.strategy, "strategy_reason": self.reason}
        if self.draws:
            out["strategy_draws"] = dict(self.draws)
        return out


def reward(fixed: bool, candidates: int, cost_usd: float = 0.0) -> float:
    """A run's reward in [0, 1]: 0 unfixed; a fix at the first candidate of a free run is 1, each further
    candidate lowers it on a log scale (10 candidates: 0.30) and each cent by about a tenth."""
    if not fixed:
        return 0.0
    return 1.0 / (1.0 + math.log(max(candidates, 1))) / (1.0 + 10.0 * max(cost_usd, 0.0))


def choose(available: Sequence[str], record: Mapping[str, Tally], seed: int, pin: str = AUTO,
           learning: bool = True, default: str = DEFAULT) -> Choice:
    """The strategy of one run. `available`: the strategies this run's proposers allow; `default`: the one
    today's order amounts to (its first proposer's); `learning`: False without a memory (nothing is
    recorded, so nothing is explored)."""
    if pin != AUTO:
        if pin in available:
            return Choice(pin, "pinned")
        return Choice(default, "default", note=f"strategy {pin!r} cannot lead this run (its proposer is not "
                      f"in use: no key, offline, or nothing approved yet); using today's order ({default})")
    others = [s for s in STRATEGIES if s in available and s != default]
    if not learning or not others or record.get(default, Tally()).runs < MIN_RUNS:
        return Choice(default, "default")  # a thin memory never explores: today's order, as without one
    rng = random.Random(f"fixloop-strategy:{seed}")  # str seeds hash the same in every process
    if rng.random() < EXPLORE_SHARE:
        fewest = min(record.get(s, Tally()).runs for s in others)
        return Choice(rng.choice([s for s in others if record.get(s, Tally()).runs == fewest]), "explore")
    eligible = [s for s in (default, *others) if record.get(s, Tally()).runs >= MIN_RUNS]
    if default not in eligible or len(eligible) < 2:
        return Choice(default, "default")
    draws = {s: round(rng.betavariate(*record[s].beta()), 6) for s in eligible}
    best = max(eligible, key=lambda s: (draws[s], s == default))
    return Choice(best, "exploit", draws)

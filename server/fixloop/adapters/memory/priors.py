"""Learned operator priors: factors on the built-in prior of each operator, from what the memory saw.

The built-in order is the prior and evidence shrinks toward it. For one error class, each operator's
chance that its candidate fixes the failure is a Beta posterior that starts with PSEUDO_COUNT
pseudo-observations at BASE_RATE; the factor is the posterior mean over BASE_RATE (1.0 = no
evidence), held within [MIN_FACTOR, MAX_FACTOR], and only once the operator has MIN_EVIDENCE
observations in this class: a fix or a few misses in one other project say little about this one
(measured: two misses of `arithmetic_swap` elsewhere turned a 1-candidate fix into 65-102). The
search multiplies suspiciousness x built-in prior x factor, so class-level evidence reorders the
operators at a line (and among lines of about the same suspiciousness) but never drags a candidate
at a poorly-suspected line ahead of a good one. Evidence specific to a statement's shape acts
through the replay proposer, not here.

No sampling decides the order: the same memory gives the same factors. Where the record has moved
some operator, a share EXPLORE_SHARE of runs (drawn from the run's seeded generator) also carries
one Thompson draw per operator under `explore:<operator>` keys; the search lets that draw put at most
a few candidates first (`repair.search.EXPLORE_MAX`). Exploring counters a learned order that locks
in; where nothing was learned the built-in order stands and nothing is explored. Pure: counts in,
factors out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping

from fixloop.core.ports import EXPLORE_PREFIX

if TYPE_CHECKING:
    import numpy as np

REVIEW_WEIGHT = 2.0  # a human accepting or rejecting a hunk says more than one test run
BASE_RATE = 0.2  # the chance a candidate of an operator with no record fixes the failure
PSEUDO_COUNT = 10.0  # the built-in order weighs as much as ten observations
MIN_FACTOR, MAX_FACTOR = 0.8, 1.25
MIN_EVIDENCE = 5.0  # weighted observations (a review counts REVIEW_WEIGHT) before an operator moves
EXPLORE_SHARE = 0.1  # runs that explore; each may put at most EXPLORE_MAX candidates first
EXPLORE_RANGE = (0.5, 2.0)


@dataclass
class Posterior:
    successes: dict[str, float] = field(default_factory=dict)
    failures: dict[str, float] = field(default_factory=dict)

    def observe(self, operator: str, success: bool, weight: float = 1.0) -> None:
        bucket = self.successes if success else self.failures
        bucket[operator] = bucket.get(operator, 0.0) + weight

    def operators(self) -> list[str]:
        return sorted(set(self.successes) | set(self.failures))

    def beta(self, operator: str) -> tuple[float, float]:
        """The Beta parameters: the built-in pseudo-observations plus this operator's record."""
        s, f = self.successes.get(operator, 0.0), self.failures.get(operator, 0.0)
        return PSEUDO_COUNT * BASE_RATE + s, PSEUDO_COUNT * (1.0 - BASE_RATE) + f

    def evidence(self, operator: str) -> float:
        return self.successes.get(operator, 0.0) + self.failures.get(operator, 0.0)

    def mean(self, operator: str) -> float:
        a, b = self.beta(operator)
        return a / (a + b)


def event_weight(value: object) -> float:
    """A row's weight as evidence: a teammate's row is untrusted, so a weight that is not a finite number counts
    as one observation and none counts more than a review (a flood of rows still moves a factor only within
    [MIN_FACTOR, MAX_FACTOR]). A missing or 0 weight is one observation, as rows imported without one have."""
    try:
        weight = float(value or 1.0)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1.0
    return _clip(weight, 0.0, REVIEW_WEIGHT) if math.isfinite(weight) else 1.0


def posterior_from(events: Iterable[Mapping[str, object]]) -> Posterior:
    post = Posterior()
    for e in events:
        operator = str(e.get("operator") or "")
        if not operator or operator.startswith(EXPLORE_PREFIX):  # an exploration key is the search's, never a row's
            continue
        post.observe(operator, bool(e.get("success")), event_weight(e.get("weight", 1.0)))
    return post


def _clip(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def factors(post: Posterior) -> dict[str, float]:
    """Posterior mean over the base rate, bounded, for operators with enough evidence: the order's factors."""
    return {op: round(_clip(post.mean(op) / BASE_RATE, MIN_FACTOR, MAX_FACTOR), 6)
            for op in post.operators() if post.evidence(op) >= MIN_EVIDENCE}


def explore_draw(post: Posterior, rng: np.random.Generator) -> dict[str, float]:
    """One Thompson draw per operator with a record, as factors (keys carry EXPLORE_PREFIX)."""
    out: dict[str, float] = {}
    for op in post.operators():  # sorted: the same generator state gives the same draws
        a, b = post.beta(op)
        out[EXPLORE_PREFIX + op] = round(_clip(float(rng.beta(a, b)) / BASE_RATE, *EXPLORE_RANGE), 6)
    return out


def learned_priors(post: Posterior, rng: np.random.Generator) -> dict[str, float]:
    """The factors, plus an exploration draw in a seeded share of the runs where some factor moved."""
    out = factors(post)
    if any(v != 1.0 for v in out.values()) and float(rng.random()) < EXPLORE_SHARE:
        out.update(explore_draw(post, rng))
    return out

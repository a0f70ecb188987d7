"""Operator priors by Thompson sampling: each (error class, operator) has a Beta posterior over
"this operator's candidate fixes this class of failure"; one draw per operator per run orders
the offline engine's candidates. Pure: counts in, weights out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:
    import numpy as np

REVIEW_WEIGHT = 2.0  # a human accepting or rejecting a hunk says more than one test run


@dataclass
class Posterior:
    successes: dict[str, float] = field(default_factory=dict)
    failures: dict[str, float] = field(default_factory=dict)

    def observe(self, operator: str, success: bool, weight: float = 1.0) -> None:
        bucket = self.successes if success else self.failures
        bucket[operator] = bucket.get(operator, 0.0) + weight

    def operators(self) -> set[str]:
        return set(self.successes) | set(self.failures)

    def mean(self, operator: str) -> float:
        s, f = self.successes.get(operator, 0.0), self.failures.get(operator, 0.0)
        return (1.0 + s) / (2.0 + s + f)


def posterior_from(events: Iterable[Mapping[str, object]]) -> Posterior:
    post = Posterior()
    for e in events:
        post.observe(str(e["operator"]), bool(e["success"]), float(e.get("weight", 1.0) or 1.0))  # type: ignore[arg-type]
    return post


def sample_weights(post: Posterior, rng: np.random.Generator) -> dict[str, float]:
    """One Thompson draw per operator with data, scaled so that an operator with no data
    (Beta(1, 1), mean 0.5) has weight 1.0: the mutation proposer multiplies suspect scores by it."""
    out: dict[str, float] = {}
    for op in sorted(post.operators()):
        a = 1.0 + post.successes.get(op, 0.0)
        b = 1.0 + post.failures.get(op, 0.0)
        out[op] = float(rng.beta(a, b)) * 2.0
    return out

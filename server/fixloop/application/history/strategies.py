"""Strategies compared: per strategy, runs, fix rate, candidates, time and $ per fix, each with a 95% interval.

Pure arithmetic over run records (`record.build`), no dependency: a Wilson score interval for the fix
rate (sound at 0 or 1 and with few runs), a Student t interval for the means over fixed runs
(candidates, seconds), and the ratio estimator's delta-method interval for $ per fix, which is a ratio
(everything spent, failed runs included, over the fixes, as in `kpis`). An interval needs at least two values;
with fewer it is None. Runs logged before strategies were recorded count under `NOT_RECORDED`.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

from fixloop.application.history.record import ATTEMPTED

Z95 = 1.959964
NOT_RECORDED = "(not recorded)"
# Two-sided 95% Student t quantiles by degrees of freedom (1..30); beyond that the normal quantile.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion; None without observations."""
    if n <= 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def t_quantile(df: int) -> float:
    return _T95[df - 1] if 1 <= df <= len(_T95) else Z95


def mean_interval(values: Sequence[float]) -> tuple[float | None, tuple[float, float] | None]:
    """The mean and its t interval (None with fewer than two values; a lower bound below 0 is kept at 0)."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = t_quantile(len(values) - 1) * sd / math.sqrt(len(values))
    return mean, (max(0.0, mean - half), mean + half)


def ratio_interval(runs: Sequence[tuple[float, bool]]) -> tuple[float | None, tuple[float, float] | None]:
    """Spent per fix over (spent, fixed) runs, with the ratio estimator's delta-method interval:
    R = mean(spent) / mean(fixed), var(R) ~ var(spent - R * fixed) / (n * mean(fixed)^2). O(n), so cheap
    on a long history."""
    n = len(runs)
    fixes = sum(1 for _, fixed in runs if fixed)
    if not fixes:
        return None, None
    value = sum(spent for spent, _ in runs) / fixes
    if n < 2:
        return value, None
    share = fixes / n
    residuals = [spent - value * (1.0 if fixed else 0.0) for spent, fixed in runs]
    variance = sum(r * r for r in residuals) / (n - 1) / (n * share * share)
    half = t_quantile(n - 1) * math.sqrt(variance)
    return value, (max(0.0, value - half), value + half)


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [round(interval[0], 6), round(interval[1], 6)]


def compare(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per strategy (most runs first): the comparison `fixloop stats --strategies` shows."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by.setdefault(str(r.get("strategy") or NOT_RECORDED), []).append(r)
    out: dict[str, dict[str, Any]] = {}
    for name, runs in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        attempted = [r for r in runs if r["status"] in ATTEMPTED]
        fixed = [r for r in attempted if r["status"] == "fixed"]
        candidates, candidates_ci = mean_interval([float(r["candidates"]) for r in fixed])
        seconds, seconds_ci = mean_interval([float(r["seconds"]) for r in fixed])
        cost, cost_ci = ratio_interval([(float(r["cost_usd"]), r["status"] == "fixed") for r in attempted])
        out[name] = {
            "runs": len(runs), "attempted": len(attempted), "fixed": len(fixed),
            "fix_rate": len(fixed) / len(attempted) if attempted else None,
            "fix_rate_interval": _pair(wilson(len(fixed), len(attempted))),
            "candidates_per_fix": candidates, "candidates_per_fix_interval": _pair(candidates_ci),
            "seconds_per_fix": seconds, "seconds_per_fix_interval": _pair(seconds_ci),
            "cost_per_fix_usd": cost, "cost_per_fix_usd_interval": _pair(cost_ci),
        }
    return out

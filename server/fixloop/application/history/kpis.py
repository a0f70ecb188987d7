"""The KPIs of a history: pure arithmetic over run records (see `record.build`).

Definitions (also in the README): a run "had something to fix" when its status is fixed, gave_up, limits
or error; nothing_to_fix, flaky, cancelled and incomplete runs count as runs but not in the fix rate.
"Per fix" means over fixed runs, except tokens and $ per fix, which are everything spent (failed runs
included) divided by the number of fixes: what a fix really costs. Percentiles are nearest-rank.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable, Sequence

from fixloop.application.history.record import ATTEMPTED
from fixloop.application.history.sources import by_source
from fixloop.application.history.strategies import compare as compare_strategies


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of `values`; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def fixer(r: dict[str, Any]) -> str:
    return f"{r.get('proposer') or '?'}/{r.get('operator') or '?'}"


def compute(records: Iterable[dict[str, Any]], memory_bytes: int | None = None) -> dict[str, Any]:
    runs = list(records)
    attempted = [r for r in runs if r["status"] in ATTEMPTED]
    fixed = [r for r in runs if r["status"] == "fixed"]
    seconds = [r["seconds"] for r in fixed]
    total_tokens = sum(r["tokens"] for r in runs)
    total_cost = sum(r["cost_usd"] for r in runs)
    rules: Counter[str] = Counter()
    for r in runs:
        rules.update(r.get("unsafe_rules", {}))
    replayed = [r["seconds"] for r in fixed if r.get("replayed")]
    fresh = [r["seconds"] for r in fixed if not r.get("replayed")]
    lookups = [r["lookup_seconds"] for r in runs if r.get("lookup_seconds") is not None]
    calls = [c for r in runs for c in r.get("model_calls", [])]
    return {
        "runs": len(runs),
        "by_status": dict(sorted(Counter(r["status"] for r in runs).items())),
        "projects": len({r["project"] for r in runs}),
        "attempted": len(attempted),
        "fixed": len(fixed),
        "fix_rate": _ratio(len(fixed), len(attempted)),
        "first_try_rate": _ratio(sum(1 for r in fixed if r.get("first_try")), len(fixed)),
        "mean_candidates_per_fix": _mean([r["candidates"] for r in fixed]),
        "mean_iterations_per_fix": _mean([r["iterations"] for r in fixed]),
        "mean_test_runs_per_fix": _mean([r["test_runs"] for r in fixed]),
        "median_seconds_per_fix": percentile(seconds, 50),
        "p90_seconds_per_fix": percentile(seconds, 90),
        "tokens": total_tokens,
        "cost_usd": round(total_cost, 6),
        "tokens_per_fix": _ratio(total_tokens, len(fixed)),
        "cost_per_fix_usd": _ratio(total_cost, len(fixed)),
        "zero_cost_fix_share": _ratio(sum(1 for r in fixed if r["cost_usd"] == 0), len(fixed)),
        "safety": {
            "refusals_by_rule": dict(sorted(rules.items())),
            "refused_candidates": _refused_candidates(runs),
            "guard_refusals": sum(r.get("guard_refusals", 0) for r in runs),
            "unsafe_candidates_run": sum(r.get("unsafe_ran", 0) for r in runs),
            "safe_run_rate": _ratio(sum(1 for r in runs if not r.get("unsafe_ran")), len(runs)),
        },
        "review": {
            "accepted_hunks": sum(r.get("accepted_hunks", 0) for r in runs),
            "rejected_hunks": sum(r.get("rejected_hunks", 0) for r in runs),
            "runs_accepted": sum(1 for r in runs if r.get("decision") == "accepted"),
            "runs_rejected": sum(1 for r in runs if r.get("decision") == "rejected"),
        },
        "error_classes": error_classes(attempted),
        "operators": operators(runs),
        "memory": {
            "replayed_fixes": len(replayed),
            "median_seconds_replayed": percentile(replayed, 50),
            "median_seconds_first_time": percentile(fresh, 50),
            "lookup_p50_seconds": percentile(lookups, 50),
            "lookup_p95_seconds": percentile(lookups, 95),
            "lookups": len(lookups),
            "store_bytes": memory_bytes,
        },
        "model": {
            "calls": sum(r["llm_calls"] for r in runs),
            "logged_calls": len(calls),
            "mean_latency_seconds": _mean([c["seconds"] for c in calls]),
            "by_model": _by_model(calls),
        },
        "cpu_seconds_per_fix": _ratio(sum(r.get("cpu_seconds", 0.0) for r in runs), len(fixed)),
        "peak_mb": max((r.get("peak_mb", 0.0) for r in runs), default=0.0),
        "runs_with_problems": sum(1 for r in runs if r.get("problems")),
        "strategies": compare_strategies(runs),
        "sources": by_source(runs),
    }


def _refused_candidates(runs: list[dict[str, Any]]) -> int:
    """Candidates refused by a safety rule (a candidate breaking two rules counts once here)."""
    return sum(r.get("unsafe_candidates", 0) for r in runs)


def error_classes(attempted: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per error class: runs that tried, how many were fixed, and by which proposer/operator."""
    out: dict[str, dict[str, Any]] = {}
    for r in attempted:
        row = out.setdefault(r["error_class"], {"runs": 0, "fixed": 0, "fixers": {}})
        row["runs"] += 1
        if r["status"] == "fixed":
            row["fixed"] += 1
            row["fixers"][fixer(r)] = row["fixers"].get(fixer(r), 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["runs"], kv[0])))


def operators(runs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per proposer/operator: candidates that ran their tests, and how many passed the whole suite."""
    out: dict[str, dict[str, int]] = {}
    for r in runs:
        for _index, proposer, operator, status, *_ in r.get("tested", []):
            row = out.setdefault(f"{proposer or '?'}/{operator or '?'}", {"tested": 0, "passed": 0})
            row["tested"] += 1
            row["passed"] += 1 if status == "plausible" else 0
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["tested"], kv[0])))


def _by_model(calls: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for c in calls:
        row = out.setdefault(c.get("model") or "?", {"calls": 0, "input_tokens": 0, "output_tokens": 0,
                                                      "cache_read_tokens": 0, "cost_usd": 0.0})
        row["calls"] += 1
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cost_usd"):
            row[k] += c.get(k, 0)
    return out

"""The learning curve by source: how many fixes came from a past fix replayed, a one-shot analogy, a mined
template, the generic search or the model, and what each saved against the generic search.

A fixed run's source is its fix's proposer (core/sources.py). What a fix saved is measured against the
generic search on the same error class in the same history: the median candidates and the median seconds
of the search's own fixes of that class are the baseline, and the saving is the baseline minus the fix's
own (negative when the source cost more). A fix whose error class the search never fixed in this history
has no baseline: it is counted as not compared, never guessed. So the figures say "against what the
search needed for bugs of this class here", not what the search would have needed for this very bug,
which no history can tell. Pure arithmetic over run records (`record.build`), O(runs).
"""

from __future__ import annotations

from statistics import median
from typing import Any, Iterable

from fixloop.core.sources import OTHER, SEARCH, SOURCES, source_of


def baselines(records: Iterable[dict[str, Any]]) -> dict[str, tuple[float, float, int]]:
    """error class -> the search's median candidates and seconds per fix, and how many fixes they come from."""
    by_class: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r["status"] == "fixed" and source_of(r.get("proposer") or "") == SEARCH:
            by_class.setdefault(r.get("error_class") or "unknown", []).append(r)
    return _medians(by_class)


def _medians(by_class: dict[str, list[dict[str, Any]]]) -> dict[str, tuple[float, float, int]]:
    return {c: (float(median([r["candidates"] for r in rs])), float(median([r["seconds"] for r in rs])), len(rs))
            for c, rs in by_class.items()}


def saving(rec: dict[str, Any], base: dict[str, tuple[float, float, int]]) -> dict[str, Any] | None:
    """What one fixed run saved against the search's medians for its error class (None without them)."""
    found = base.get(rec.get("error_class") or "unknown")
    if found is None or source_of(rec.get("proposer") or "") in ("", SEARCH):
        return None
    candidates, seconds, runs = found
    return {"error_class": rec.get("error_class") or "unknown", "candidates": rec["candidates"],
            "seconds": round(rec["seconds"], 3), "search_fixes": runs,
            "search_median_candidates": candidates, "search_median_seconds": round(seconds, 3),
            "candidates_saved": candidates - rec["candidates"], "seconds_saved": round(seconds - rec["seconds"], 3)}


def _median(values: list[float]) -> float | None:
    return float(median(values)) if values else None


def by_source(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per source (every source listed, zeros included): fixes, median candidates and seconds per fix, and over
    the fixes with a baseline the saving per fix (median) and in all. One pass to group, one over the fixes."""
    mine: dict[str, list[dict[str, Any]]] = {source: [] for source in SOURCES}
    for r in records:
        if r["status"] == "fixed":
            mine[source_of(r.get("proposer") or "") or OTHER].append(r)  # a run rebuilt from its events may name none
    search_by_class: dict[str, list[dict[str, Any]]] = {}
    for r in mine[SEARCH]:
        search_by_class.setdefault(r.get("error_class") or "unknown", []).append(r)
    base = _medians(search_by_class)
    out: dict[str, dict[str, Any]] = {}
    for source, fixes in mine.items():
        saved = [] if source == SEARCH else [s for s in (saving(r, base) for r in fixes) if s is not None]
        out[source] = {
            "fixes": len(fixes),
            "median_candidates": _median([r["candidates"] for r in fixes]),
            "median_seconds": _median([r["seconds"] for r in fixes]),
            "compared": len(saved),
            "median_candidates_saved": _median([s["candidates_saved"] for s in saved]),
            "median_seconds_saved": _median([s["seconds_saved"] for s in saved]),
            "candidates_saved": sum(s["candidates_saved"] for s in saved) if saved else None,
            "seconds_saved": round(sum(s["seconds_saved"] for s in saved), 3) if saved else None,
        }
    return out

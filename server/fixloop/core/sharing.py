"""The share modes of a team's memory (`memory.share`), from the one that lets least leave to the one that
lets most: what config.py accepts, and the order a project's file may only move down (tighten)."""

from __future__ import annotations

FIXES_ONLY = "fixes-only"  # fixed failures and their verified fixes: what replay and the mined templates need
FIXES_AND_STATS = "fixes-and-stats"  # also the operator statistics, reduced to counts that carry no code
ALL = "all"  # also unfixed failures, review decisions, and the statistics as they are stored
SHARES: tuple[str, ...] = (FIXES_ONLY, FIXES_AND_STATS, ALL)
DEFAULT_SHARE = FIXES_AND_STATS

MEANINGS: dict[str, str] = {
    FIXES_ONLY: "fixed failures and their verified fixes only (the stricter mode; the default of earlier versions)",
    FIXES_AND_STATS: "fixed failures, their fixes, and operator statistics reduced to counts that carry no code "
                     "(the default)",
    ALL: "also unfixed failures, review decisions and the operator statistics as stored",
}


def at_most(wanted: str, current: str) -> bool:
    """Whether `wanted` lets no more leave than `current` (both known modes)."""
    return wanted in SHARES and current in SHARES and SHARES.index(wanted) <= SHARES.index(current)

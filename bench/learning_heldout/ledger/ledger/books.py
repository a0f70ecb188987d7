"""A household ledger: spending, savings and budgets."""

from __future__ import annotations

MIN_SPEND = 50  # a month with at least this much spending earns the bonus


def bounded(amount: float, floor: float, ceiling: float) -> float:
    return max(floor, min(amount, ceiling))


def transfer_size(requested: float, account_floor: float, account_ceiling: float) -> float:
    """What may move in one transfer: never under the floor, never over the ceiling."""
    return bounded(requested, account_floor, account_ceiling)


def earns_bonus(spent: float, minimum: float = MIN_SPEND) -> bool:
    return spent >= minimum


def growth(principal: float, rate: float, years: int) -> list[float]:
    """The balance now and at the end of each year."""
    return [round(principal * (1 + rate) ** year, 2) for year in range(years + 1)]


def percent(part: float, whole: float) -> float:
    return 100.0 * part / whole


def budget_used(spent: float, budget: float) -> float:
    """How much of the budget is gone, in percent."""
    return percent(spent, budget)

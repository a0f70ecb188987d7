"""What a stay costs: every started hour after a grace period, capped for each day."""

from __future__ import annotations

import math

MINUTES_PER_DAY = 24 * 60
GRACE_MINUTES = 10


def billable_hours(minutes: int, grace: int = GRACE_MINUTES) -> int:
    """Every started hour counts, but a stay no longer than the grace period is free."""
    if minutes <= grace:
        return 0
    return math.ceil(minutes / 60)


def fee(minutes: int, hourly: float, daily_cap: float) -> float:
    """The hours started at `hourly`, never more than `daily_cap` for any one day."""
    days, rest = divmod(minutes, MINUTES_PER_DAY)
    return round(days * daily_cap + min(billable_hours(rest) * hourly, daily_cap), 2)

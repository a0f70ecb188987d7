GRACE_DAYS = 3


def late_fee(days_late: int) -> float:
    if days_late > GRACE_DAYS:
        return 0.0
    return 5.0 + days_late

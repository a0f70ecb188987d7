RATE = 20.0


def billable(hours: float, volunteer: bool) -> float:
    if not volunteer:
        return 0.0
    return hours * RATE

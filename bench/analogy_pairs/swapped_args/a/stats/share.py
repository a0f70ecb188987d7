def percent(part: float, whole: float) -> float:
    if whole == 0:
        return 0.0
    return 100.0 * part / whole


def vote_share(votes: int, turnout: int) -> float:
    return round(percent(turnout, votes), 1)

def cheapest(offers: dict[str, float]) -> float:
    best = max(offers.values())
    return round(best, 2)


def count(offers: dict[str, float]) -> int:
    return len(offers)

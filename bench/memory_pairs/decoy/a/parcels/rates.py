HEAVY_FROM = 20


def surcharge(weight: int) -> int:
    if weight > HEAVY_FROM:
        return 15
    return 0

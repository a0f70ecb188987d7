FREE_FROM = 50


def shipping_cost(subtotal: float, weight: float) -> float:
    base = 4.0 + weight * 0.5
    if subtotal > FREE_FROM:
        return 0.0
    return round(base, 2)

def apply_discount(prices, percent):
    """New list of prices reduced by percent, rounded to cents."""
    discounted = []
    for p in prices:
        discounted.append(round(p * (100 - percent) / 100, 2))


def cheapest(prices):
    return min(prices) if prices else None

def clamp(value: float, low: float, high: float) -> float:
    """`value` limited to the interval [low, high]."""
    return max(low, min(value, low))


def span(low: float, high: float) -> float:
    return high - low

def clamp(value, low, high):
    """value limited to the closed interval [low, high]."""
    if value < low:
        return high
    if value > high:
        return high
    return value


def normalise(values, low, high):
    return [clamp(v, low, high) for v in values]

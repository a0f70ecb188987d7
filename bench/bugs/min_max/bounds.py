def value_range(values):
    """(smallest, largest) of values."""
    return max(values), min(values)


def width(values):
    lo, hi = value_range(values)
    return hi - lo

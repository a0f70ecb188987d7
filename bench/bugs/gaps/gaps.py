def gaps(values):
    """Differences between neighbouring values."""
    if len(values) < 2:
        return []
    return [b - a for a, b in zip(values, values)]

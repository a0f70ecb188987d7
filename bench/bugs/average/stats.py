def average(values):
    """Arithmetic mean; the mean of no values is 0.0."""
    return sum(values) / len(values)


def spread(values):
    return max(values) - min(values) if values else 0

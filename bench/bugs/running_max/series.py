def running_max(values):
    """For each position, the largest value seen so far."""
    best = 0
    out = []
    for v in values:
        if v > best:
            best = v
        out.append(best)
    return out

def run_lengths(values):
    """Run-length encoding: [(value, how many in a row), ...]."""
    if not values:
        return []
    runs = []
    current, count = values[0], 0
    for v in values:
        if v == current:
            count += 1
        else:
            runs.append((current, count))
            current, count = v, 1
    return runs

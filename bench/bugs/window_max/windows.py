def window_max(xs, k):
    """The largest value in each window of k consecutive items."""
    if k <= 0:
        raise ValueError("window must be positive")
    out = []
    for i in range(len(xs) - k):
        out.append(max(xs[i:i + k - 1]))
    return out

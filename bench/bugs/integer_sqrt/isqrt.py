def integer_sqrt(n):
    """The largest r with r * r <= n, by bisection."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo

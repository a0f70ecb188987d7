def insertion_point(a, x):
    """The first index at which x could be inserted into the sorted list a, keeping it sorted."""
    lo, hi = 0, len(a) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo

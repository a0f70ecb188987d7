def int_sqrt(n):
    """The largest r with r * r <= n, for n >= 0, by bisection."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi - 1) // 2
        if mid * mid <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo


def is_square(n):
    root = int_sqrt(n)
    return root * root == n

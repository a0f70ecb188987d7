def square_root(n, tolerance=1e-12):
    """Square root of a non-negative number by Newton's iteration."""
    if n < 0:
        raise ValueError("negative")
    if n == 0:
        return 0.0
    x = max(n, 1.0)
    for _ in range(200):
        nxt = (x + x / n) / 2
        if abs(nxt - x) <= tolerance * x:
            return nxt
        x = nxt
    return x

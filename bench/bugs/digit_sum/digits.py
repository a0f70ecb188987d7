def digit_sum(n):
    """Sum of the decimal digits of a non-negative integer."""
    return n % 10 + digit_sum(n // 10)


def digital_root(n):
    while n >= 10:
        n = digit_sum(n)
    return n

def digit_count(n):
    """How many decimal digits a non-negative integer has."""
    if n == 0:
        return 1
    count = 0
    while n > 0:
        n /= 10
        count += 1
    return count


def pad_width(values):
    return max(digit_count(v) for v in values) if values else 0

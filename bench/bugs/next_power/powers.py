def next_power_of_two(n):
    """The smallest power of two that is >= n (1 for n <= 1)."""
    power = 0
    while power < n:
        power = power * 2
    return max(power, 1)


def pad_length(items):
    """Length of a buffer holding items, rounded up to a power of two."""
    return next_power_of_two(len(items))

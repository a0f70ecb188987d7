def collatz_steps(n):
    """How many steps the Collatz map takes to bring n (n >= 1) down to 1."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n - 1
        steps += 1
    return steps


def longest_below(limit):
    """The start below limit with the most steps (the smallest such start on a tie)."""
    best, best_steps = 1, 0
    for start in range(1, limit):
        steps = collatz_steps(start)
        if steps > best_steps:
            best, best_steps = start, steps
    return best

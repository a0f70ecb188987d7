import random
import signal

from collatz import collatz_steps, longest_below

signal.alarm(30)  # a fix that still loops must fail the check, not hang it


def reference(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


rng = random.Random(7)
for _ in range(500):
    n = rng.randint(1, 10_000)
    assert collatz_steps(n) == reference(n), n
for limit in (2, 3, 10, 50, 100):
    expected = max(range(1, limit), key=lambda s: (reference(s), -s))
    assert longest_below(limit) == expected, limit

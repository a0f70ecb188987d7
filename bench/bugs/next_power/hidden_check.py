import random
import signal

from powers import next_power_of_two, pad_length

signal.alarm(30)  # a fix that still loops must fail the check, not hang it


def reference(n):
    power = 1
    while power < n:
        power *= 2
    return power


rng = random.Random(5)
for n in list(range(-3, 300)) + [rng.randint(0, 10**9) for _ in range(300)]:
    assert next_power_of_two(n) == reference(n), n
for _ in range(100):
    items = list(range(rng.randint(0, 100)))
    assert pad_length(items) == reference(len(items))

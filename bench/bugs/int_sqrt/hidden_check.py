import math
import random
import signal

from isqrt import int_sqrt, is_square

signal.alarm(30)  # a fix that still loops must fail the check, not hang it

rng = random.Random(3)
for n in list(range(200)) + [rng.randint(0, 10**12) for _ in range(500)]:
    assert int_sqrt(n) == math.isqrt(n), n
    assert is_square(n) == (math.isqrt(n) ** 2 == n), n

import random
from merge import merge

rng = random.Random(6)
for _ in range(2000):
    a = sorted(rng.randint(0, 20) for _ in range(rng.randint(0, 8)))
    b = sorted(rng.randint(0, 20) for _ in range(rng.randint(0, 8)))
    assert merge(a, b) == sorted(a + b), (a, b)

import random
from rises import count_rises

rng = random.Random(21)
for _ in range(800):
    xs = [rng.randint(-5, 5) for _ in range(rng.randint(0, 10))]
    assert count_rises(xs) == sum(1 for a, b in zip(xs, xs[1:]) if b > a), xs

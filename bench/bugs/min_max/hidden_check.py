import random
from bounds import value_range

rng = random.Random(14)
for _ in range(500):
    xs = [rng.randint(-9, 9) for _ in range(rng.randint(1, 9))]
    assert value_range(xs) == (min(xs), max(xs))

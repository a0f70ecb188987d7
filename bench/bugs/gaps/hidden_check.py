import random
from gaps import gaps

rng = random.Random(4)
for _ in range(800):
    xs = [rng.randint(-9, 9) for _ in range(rng.randint(0, 10))]
    assert gaps(xs) == [xs[i + 1] - xs[i] for i in range(len(xs) - 1)], xs

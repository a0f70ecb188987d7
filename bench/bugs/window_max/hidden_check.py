import random
from windows import window_max

rng = random.Random(37)
for _ in range(500):
    xs = [rng.randint(-9, 9) for _ in range(rng.randint(0, 12))]
    k = rng.randint(1, 6)
    expected = [max(xs[i:i + k]) for i in range(len(xs) - k + 1)]
    assert window_max(xs, k) == expected, (xs, k)

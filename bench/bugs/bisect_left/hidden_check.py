import bisect
import random
from insertion_point import insertion_point

rng = random.Random(31)
for _ in range(800):
    a = sorted(rng.randint(0, 15) for _ in range(rng.randint(0, 12)))
    x = rng.randint(-2, 17)
    assert insertion_point(a, x) == bisect.bisect_left(a, x), (a, x)

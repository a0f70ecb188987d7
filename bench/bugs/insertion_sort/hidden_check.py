import random
from sorting import insertion_sort

rng = random.Random(7)
for _ in range(2000):
    xs = [rng.randint(-9, 9) for _ in range(rng.randint(0, 12))]
    assert insertion_sort(xs) == sorted(xs), xs

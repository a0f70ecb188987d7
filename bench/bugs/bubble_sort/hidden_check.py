import random
from sorting import bubble_sort

rng = random.Random(8)
for _ in range(2000):
    xs = [rng.randint(-9, 9) for _ in range(rng.randint(0, 12))]
    assert bubble_sort(xs) == sorted(xs), xs

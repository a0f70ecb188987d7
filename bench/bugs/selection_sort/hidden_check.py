import random
from selection import selection_sort

rng = random.Random(29)
for _ in range(500):
    data = [rng.randint(-20, 20) for _ in range(rng.randint(0, 15))]
    assert selection_sort(data) == sorted(data), data

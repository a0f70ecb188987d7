import random
from buckets import locate

rng = random.Random(17)
for _ in range(800):
    buckets = [[0] * rng.randint(0, 4) for _ in range(rng.randint(1, 5))]
    flat = [(b, i) for b, items in enumerate(buckets) for i in range(len(items))]
    index = rng.randint(0, len(flat) + 2)
    try:
        got = locate(buckets, index)
    except IndexError:
        got = None
    assert got == (flat[index] if index < len(flat) else None), (buckets, index)

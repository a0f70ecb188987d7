import random
from search import binary_search

rng = random.Random(1)
for _ in range(2000):
    items = sorted(rng.sample(range(100), rng.randint(0, 20)))
    target = rng.randint(-5, 105)
    got = binary_search(items, target)
    expected = items.index(target) if target in items else -1
    assert got == expected, (items, target, got)

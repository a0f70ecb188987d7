import random
from search import find

rng = random.Random(23)
for _ in range(800):
    items = sorted(rng.sample(range(40), rng.randint(0, 12)))
    target = rng.randint(-2, 42)
    assert find(items, target) == (items.index(target) if target in items else -1), (items, target)

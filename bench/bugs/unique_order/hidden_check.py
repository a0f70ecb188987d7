import random
from dedupe import unique_in_order

rng = random.Random(5)
for _ in range(800):
    xs = [rng.randint(0, 6) for _ in range(rng.randint(0, 12))]
    assert unique_in_order(xs) == list(dict.fromkeys(xs)), xs

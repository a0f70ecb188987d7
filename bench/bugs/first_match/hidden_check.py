import random
from search import index_of_first

rng = random.Random(11)
for _ in range(2000):
    xs = [rng.randint(0, 9) for _ in range(rng.randint(0, 10))]
    t = rng.randint(0, 9)
    expected = xs.index(t) if t in xs else -1
    assert index_of_first(xs, lambda x: x == t) == expected

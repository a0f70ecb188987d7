import itertools
import random
from series import running_max

rng = random.Random(12)
for _ in range(1000):
    xs = [rng.randint(-20, 20) for _ in range(rng.randint(0, 10))]
    assert running_max(xs) == list(itertools.accumulate(xs, max))

import itertools
import random
from streak import longest_run

rng = random.Random(33)
for _ in range(800):
    xs = [rng.randint(0, 2) for _ in range(rng.randint(0, 12))]
    assert longest_run(xs) == max((len(list(g)) for _, g in itertools.groupby(xs)), default=0), xs

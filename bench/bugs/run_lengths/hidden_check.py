import itertools
import random
from rle import run_lengths

rng = random.Random(9)
for _ in range(800):
    xs = [rng.randint(0, 3) for _ in range(rng.randint(0, 12))]
    assert run_lengths(xs) == [(k, len(list(g))) for k, g in itertools.groupby(xs)], xs

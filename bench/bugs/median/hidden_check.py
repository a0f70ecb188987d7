import random
import statistics
from middle import median

rng = random.Random(13)
for _ in range(1000):
    xs = [rng.randint(0, 50) for _ in range(rng.randint(1, 9))]
    assert median(xs) == statistics.median(xs)

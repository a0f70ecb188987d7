import random
import statistics
from stats import average

rng = random.Random(4)
assert average([]) == 0.0
for _ in range(500):
    xs = [rng.randint(-50, 50) for _ in range(rng.randint(1, 20))]
    assert abs(average(xs) - statistics.mean(xs)) < 1e-9

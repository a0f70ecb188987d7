import math
import random
from isqrt import integer_sqrt

rng = random.Random(8)
for _ in range(800):
    n = rng.randint(0, 10 ** rng.randint(1, 8))
    assert integer_sqrt(n) == math.isqrt(n), n

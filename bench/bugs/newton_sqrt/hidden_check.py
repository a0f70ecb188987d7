import math
import random
from roots import square_root

rng = random.Random(11)
for _ in range(600):
    n = rng.choice([rng.uniform(0, 1), rng.uniform(0, 100), rng.uniform(0, 1e6), float(rng.randint(0, 500))])
    assert math.isclose(square_root(n), math.sqrt(n), rel_tol=1e-9, abs_tol=1e-12), n

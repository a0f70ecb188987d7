import math
import random
from geometry.points import Point

rng = random.Random(10)
for _ in range(2000):
    a = Point(rng.uniform(-9, 9), rng.uniform(-9, 9))
    b = Point(rng.uniform(-9, 9), rng.uniform(-9, 9))
    assert math.isclose(a.distance_to(b), math.hypot(a.x - b.x, a.y - b.y), abs_tol=1e-9)

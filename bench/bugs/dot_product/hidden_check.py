import random
from vectors import dot

rng = random.Random(19)
for _ in range(500):
    n = rng.randint(0, 12)
    u = [rng.randint(-50, 50) for _ in range(n)]
    v = [rng.randint(-50, 50) for _ in range(n)]
    assert dot(u, v) == sum(a * b for a, b in zip(u, v)), (u, v)

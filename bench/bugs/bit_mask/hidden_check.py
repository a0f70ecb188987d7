import random
from masks import low_bits, mask

rng = random.Random(7)
for n in range(0, 200):
    assert mask(n) == 2 ** n - 1, n
for _ in range(500):
    v, n = rng.randint(0, 2**40), rng.randint(0, 45)
    assert low_bits(v, n) == v % (2 ** n), (v, n)

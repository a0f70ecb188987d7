import functools
import operator
import random
from checksum import checksum

rng = random.Random(13)
for _ in range(500):
    data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 30)))
    assert checksum(data) == functools.reduce(operator.xor, data, 0), data

import random
from hexfmt import to_hex

rng = random.Random(23)
for n in list(range(600)) + [rng.randint(0, 2**64) for _ in range(300)]:
    assert to_hex(n) == format(n, "x"), n

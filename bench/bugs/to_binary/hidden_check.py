import random
from binary import from_binary, to_binary

rng = random.Random(3)
for n in list(range(300)) + [rng.randint(0, 10**9) for _ in range(300)]:
    assert to_binary(n) == format(n, "b"), n
    assert from_binary(format(n, "b")) == n

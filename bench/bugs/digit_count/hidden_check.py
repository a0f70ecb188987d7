import random
from counting import digit_count

rng = random.Random(17)
for n in list(range(1000)) + [rng.randint(0, 10**30) for _ in range(300)]:
    assert digit_count(n) == len(str(n)), n

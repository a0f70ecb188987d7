import random
from readings import Thermometer

rng = random.Random(9)
for _ in range(300):
    t = Thermometer()
    xs = [rng.randint(-20, 40) for _ in range(rng.randint(1, 10))]
    for x in xs:
        t.record(x)
    assert abs(t.mean() - sum(xs) / len(xs)) < 1e-9

import math
from rounding import round_down, round_up

for v in range(-50, 50):
    for s in (1, 2, 5, 10):
        assert round_down(v, s) == math.floor(v / s) * s
        assert round_up(v, s) == math.ceil(v / s) * s

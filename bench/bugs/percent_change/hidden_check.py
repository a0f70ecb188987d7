import math
from finance import percent_change

for old in range(1, 60):
    for new in range(0, 60, 7):
        assert math.isclose(percent_change(old, new), (new - old) / old * 100, abs_tol=1e-9)

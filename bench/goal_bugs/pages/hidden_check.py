import math
from paging import page_count
for n in range(0, 60):
    for per in range(1, 9):
        assert page_count(n, per) == math.ceil(n / per), (n, per)

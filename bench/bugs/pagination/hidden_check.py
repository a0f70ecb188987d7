import math
from pages import page_count

for t in range(0, 200):
    for p in range(1, 12):
        assert page_count(t, p) == math.ceil(t / p), (t, p)

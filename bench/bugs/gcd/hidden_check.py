import math
from arith import gcd

for a in range(0, 80):
    for b in range(0, 80):
        assert gcd(a, b) == math.gcd(a, b), (a, b)

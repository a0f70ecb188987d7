import itertools
from tags import merge
for n in range(4):
    for a in itertools.product(range(3), repeat=n):
        for b in itertools.product(range(3), repeat=3 - n):
            assert merge(list(a), list(b)) == list(dict.fromkeys(a + b)), (a, b)

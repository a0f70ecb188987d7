import itertools
from board import rank
for n in range(5):
    for scores in itertools.product(range(-2, 3), repeat=n):
        assert rank(list(scores)) == sorted(scores, reverse=True), scores

import collections
import random
import re
from counter import word_counts

rng = random.Random(3)
for _ in range(500):
    text = " ".join(rng.choice(["a", "B", "cat", "Dog", "it's"]) for _ in range(rng.randint(0, 12)))
    assert word_counts(text) == dict(collections.Counter(re.findall(r"[a-z']+", text.lower())))

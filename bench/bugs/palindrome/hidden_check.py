import random
import string
from text_utils import is_palindrome

rng = random.Random(2)
for _ in range(3000):
    s = "".join(rng.choice("abAB ,1") for _ in range(rng.randint(0, 9)))
    clean = [c.lower() for c in s if c.isalnum()]
    assert is_palindrome(s) == (clean == clean[::-1]), s

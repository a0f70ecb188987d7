import itertools
import random
import signal

from rle import decode, encode

signal.alarm(30)  # a fix that still loops must fail the check, not hang it

rng = random.Random(11)
for _ in range(500):
    text = "".join(rng.choice("abc") for _ in range(rng.randint(0, 30)))
    expected = [(k, len(list(g))) for k, g in itertools.groupby(text)]
    assert encode(text) == expected, text
    assert decode(encode(text)) == text, text

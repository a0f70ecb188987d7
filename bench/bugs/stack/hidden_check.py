import random
from stack import Stack

rng = random.Random(5)
s, ref = Stack(), []
for _ in range(3000):
    if ref and rng.random() < 0.45:
        assert s.pop() == ref.pop()
    else:
        x = rng.randint(0, 99)
        s.push(x)
        ref.append(x)
    assert len(s) == len(ref)
    assert s.peek() == (ref[-1] if ref else None)

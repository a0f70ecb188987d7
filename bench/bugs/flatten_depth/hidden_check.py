import random
from nesting import flatten_to


def reference(items, depth):
    out = []
    for x in items:
        if isinstance(x, list) and depth > 0:
            out.extend(reference(x, depth - 1))
        else:
            out.append(x)
    return out


def build(rng, level):
    return [build(rng, level + 1) if level < 4 and rng.random() < 0.3 else rng.randint(0, 9)
            for _ in range(rng.randint(0, 4))]


rng = random.Random(19)
for _ in range(800):
    items, depth = build(rng, 0), rng.randint(0, 4)
    assert flatten_to(items, depth) == reference(items, depth), (items, depth)

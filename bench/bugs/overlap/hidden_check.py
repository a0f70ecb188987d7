import random
from intervals import merge_all, overlaps

rng = random.Random(41)
for _ in range(800):
    a = sorted((rng.randint(0, 12), rng.randint(0, 12)))
    b = sorted((rng.randint(0, 12), rng.randint(0, 12)))
    assert overlaps(a, b) == (max(a[0], b[0]) <= min(a[1], b[1])), (a, b)
for _ in range(200):
    ivs = [tuple(sorted((rng.randint(0, 20), rng.randint(0, 20)))) for _ in range(rng.randint(0, 6))]
    got = merge_all(ivs)
    cover = {x for s, e in ivs for x in range(s, e + 1)}
    assert {x for s, e in got for x in range(s, e + 1)} == cover, ivs
    assert all(got[i][1] < got[i + 1][0] for i in range(len(got) - 1)), ivs

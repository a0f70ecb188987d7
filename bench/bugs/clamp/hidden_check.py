from bounds import clamp

for v in range(-20, 20):
    for lo in range(-5, 5):
        for hi in range(lo, lo + 8):
            assert clamp(v, lo, hi) == max(lo, min(v, hi)), (v, lo, hi)

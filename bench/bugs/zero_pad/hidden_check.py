from fmt import zero_pad

for n in range(0, 2000, 13):
    for w in range(0, 8):
        assert zero_pad(n, w) == str(n).zfill(w)

from geo.line import distance
for a in range(-6, 7):
    for b in range(-6, 7):
        assert distance(a, b) == abs(a - b), (a, b)

from power import power

for b in range(-5, 6):
    for e in range(0, 20):
        assert power(b, e) == b ** e, (b, e)

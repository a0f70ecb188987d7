from shop.rates import discount
for q in range(0, 40):
    assert discount(q) == (0.1 if q >= 10 else 0.0), q

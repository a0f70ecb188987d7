from shop import with_tax

for cents in range(0, 100000, 137):
    amount = cents / 100
    assert with_tax(amount) == round(amount * 1.2, 2), amount

from prices import apply_discount

assert apply_discount([], 50) == []
assert apply_discount([100.0, 1.0], 25) == [75.0, 0.75]

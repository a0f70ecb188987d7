import random
from stock import stock_levels

rng = random.Random(13)
for _ in range(800):
    stock = rng.randint(0, 20)
    orders = [rng.randint(0, 8) for _ in range(rng.randint(0, 8))]
    expected, level = [], stock
    for q in orders:
        level = max(0, level - q)
        expected.append(level)
    assert stock_levels(stock, orders) == expected, (stock, orders)

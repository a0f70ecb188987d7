from stock import stock_levels


def test_orders_served():
    assert stock_levels(10, [3, 4]) == [7, 3]


def test_sold_out():
    assert stock_levels(5, [3, 4, 1]) == [2, 0, 0]

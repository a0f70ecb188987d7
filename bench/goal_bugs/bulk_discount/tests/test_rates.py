from shop.rates import discount


def test_big_order():
    assert discount(50) == 0.1

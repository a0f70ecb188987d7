from shipping.cost import shipping_cost


def test_free_from_fifty():
    assert shipping_cost(50, 2.0) == 0.0


def test_small_order_pays():
    assert shipping_cost(20, 2.0) == 5.0

from shipping import shipping_cost


def test_light():
    assert shipping_cost(1) == 4.5

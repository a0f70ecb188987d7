from loyalty.points import points


def test_bonus_is_added():
    assert points(100, 50) == 150


def test_gold_doubles():
    assert points(900, 200) == 2200


def test_exactly_gold_is_not_doubled():
    assert points(1000, 0) == 1000

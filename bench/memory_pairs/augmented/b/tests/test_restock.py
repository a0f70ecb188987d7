from depot.restock import restock


def test_deliveries_raise_the_level():
    assert restock(3, [2, 4], 100) == 9


def test_capped():
    assert restock(3, [50, 60], 100) == 100

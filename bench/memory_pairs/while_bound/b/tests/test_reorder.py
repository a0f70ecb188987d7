from stock.reorder import shortfall


def test_one_short():
    assert shortfall([2, 9], 5) == 3


def test_two_short():
    assert shortfall([0, 1, 7], 4) == 7


def test_nothing_short():
    assert shortfall([8, 9], 5) == 0

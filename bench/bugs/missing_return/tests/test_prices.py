from prices import apply_discount, cheapest


def test_discount():
    assert apply_discount([10.0, 20.0], 10) == [9.0, 18.0]


def test_no_discount():
    assert apply_discount([5.0], 0) == [5.0]


def test_cheapest():
    assert cheapest([3, 1, 2]) == 1

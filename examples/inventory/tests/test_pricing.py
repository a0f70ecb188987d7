from inventory import line_total, order_total


def test_small_line_has_no_discount():
    assert line_total(2.0, 3) == 6.0


def test_bulk_discount_from_ten_units():
    assert line_total(1.0, 10) == 9.0


def test_bulk_discount_above_ten_units():
    assert line_total(2.0, 20) == 36.0


def test_order_total_adds_shipping_below_threshold():
    assert order_total([(2.0, 3)]) == 10.5


def test_order_total_free_shipping():
    assert order_total([(5.0, 10)]) == 45.0 + 4.5
    assert order_total([(10.0, 10)]) == 90.0

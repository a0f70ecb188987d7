from stays import days_between, nights, parse, price


def test_same_day():
    assert days_between(parse("2024-03-01"), parse("2024-03-01")) == 0


def test_over_month_end():
    assert days_between(parse("2024-02-28"), parse("2024-03-01")) == 2


def test_nights():
    assert nights(parse("2024-05-01"), parse("2024-05-04")) == 3


def test_price():
    assert price(parse("2024-05-01"), parse("2024-05-03"), 80) == 160

from calendar_days.days import day_numbers, weekend


def test_includes_last():
    assert day_numbers(1, 3) == [1, 2, 3]


def test_single():
    assert day_numbers(5, 5) == [5]


def test_weekend():
    assert weekend(6)

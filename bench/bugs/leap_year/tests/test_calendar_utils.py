from calendar_utils import days_in_february, days_in_year, is_leap


def test_ordinary_leap_year():
    assert is_leap(2024)


def test_common_year():
    assert not is_leap(2023)


def test_century_is_not_leap():
    assert not is_leap(1900)


def test_four_hundred_is_leap():
    assert is_leap(2000)


def test_days():
    assert days_in_year(2024) == 366
    assert days_in_february(2023) == 28

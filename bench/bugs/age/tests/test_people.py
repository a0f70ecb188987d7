import datetime

from people import age, is_adult

D = datetime.date


def test_on_birthday():
    assert age(D(2000, 5, 17), D(2024, 5, 17)) == 24


def test_day_before_birthday():
    assert age(D(2000, 5, 17), D(2024, 5, 16)) == 23


def test_after_birthday():
    assert age(D(2000, 5, 17), D(2024, 12, 1)) == 24


def test_adult():
    assert is_adult(D(2000, 1, 1), D(2024, 1, 1))

import datetime

from schedule import is_weekend, working_days

D = datetime.date


def test_sunday():
    assert is_weekend(D(2024, 3, 10))


def test_saturday():
    assert is_weekend(D(2024, 3, 9))


def test_working_days_in_a_week():
    assert working_days(D(2024, 3, 4), D(2024, 3, 11)) == 5

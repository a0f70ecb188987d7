import datetime

from dates import is_weekend, next_monday, weekday_name


def test_a_monday():
    assert weekday_name(datetime.date(2024, 1, 1)) == "Monday"


def test_a_saturday():
    assert weekday_name(datetime.date(2024, 1, 6)) == "Saturday"


def test_weekend():
    assert is_weekend(datetime.date(2024, 1, 7))


def test_next_monday():
    assert next_monday(datetime.date(2024, 1, 3)) == datetime.date(2024, 1, 8)

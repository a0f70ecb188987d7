import datetime

from library.fines import fine
from library.loans import days_late, due_date

D = datetime.date


def test_due_date():
    assert due_date(D(2024, 1, 1)) == D(2024, 1, 15)


def test_on_time():
    assert fine(D(2024, 1, 1), D(2024, 1, 10)) == 0


def test_four_days_late():
    assert fine(D(2024, 1, 1), D(2024, 1, 19)) == 1.0


def test_cap():
    assert fine(D(2024, 1, 1), D(2024, 6, 1)) == 5.0


def test_days_late():
    assert days_late(D(2024, 1, 1), D(2024, 1, 16)) == 1

from calendar_utils import is_leap


def test_odd_year():
    assert is_leap(2023) is False

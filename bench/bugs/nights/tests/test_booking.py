import datetime

import pytest

from booking import nights, price

D = datetime.date


def test_one_night():
    assert nights(D(2024, 6, 1), D(2024, 6, 2)) == 1


def test_price():
    assert price(D(2024, 6, 1), D(2024, 6, 4), 80) == 240


def test_bad_dates():
    with pytest.raises(ValueError):
        nights(D(2024, 6, 2), D(2024, 6, 1))

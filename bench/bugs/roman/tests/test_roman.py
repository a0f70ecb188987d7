import pytest

from roman import to_roman


def test_four():
    assert to_roman(4) == "IV"


def test_ten():
    assert to_roman(10) == "X"


def test_year():
    assert to_roman(1994) == "MCMXCIV"


def test_out_of_range():
    with pytest.raises(ValueError):
        to_roman(0)

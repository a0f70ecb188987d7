import pytest

from finance import growth_label, percent_change


def test_doubling():
    assert percent_change(50, 100) == pytest.approx(100)


def test_drop():
    assert percent_change(200, 150) == pytest.approx(-25)


def test_label():
    assert growth_label(10, 12) == "up"

import pytest

from convert import celsius_to_fahrenheit, describe, fahrenheit_to_celsius


def test_freezing():
    assert celsius_to_fahrenheit(0) == 32


def test_boiling():
    assert celsius_to_fahrenheit(100) == 212


def test_back_and_forth():
    assert fahrenheit_to_celsius(212) == pytest.approx(100)


def test_describe():
    assert describe(37) == "37.0 C = 98.6 F"

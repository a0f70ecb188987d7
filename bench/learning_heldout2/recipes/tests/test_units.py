import pytest

from recipes.units import convert, parse_amount, pretty


def test_kilograms_to_grams():
    assert convert(1.5, "kg", "g") == 1500.0


def test_pounds_to_kilograms():
    assert convert(2, "lb", "kg") == 0.91


def test_volumes_are_not_weights():
    with pytest.raises(ValueError):
        convert(1, "cup", "g")


def test_pretty_switches_to_kilograms():
    assert pretty(250, "g") == "250 g"
    assert pretty(1250, "g") == "1.25 kg"


def test_parse_amount():
    assert parse_amount("1.5 kg") == (1.5, "kg")
    assert parse_amount("3") == (3.0, "pcs")

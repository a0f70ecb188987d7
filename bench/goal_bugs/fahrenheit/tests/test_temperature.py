from units.temperature import to_fahrenheit


def test_type():
    assert isinstance(to_fahrenheit(1), float)

from units.temperature import fahrenheit


def test_freezing():
    assert fahrenheit(0.0) == 32.0


def test_boiling():
    assert fahrenheit(100.0) == 212.0

from power import power


def test_square():
    assert power(3, 2) == 9


def test_zero_exponent():
    assert power(5, 0) == 1


def test_big():
    assert power(2, 10) == 1024

from isqrt import integer_sqrt


def test_perfect_square():
    assert integer_sqrt(49) == 7


def test_between_squares():
    assert integer_sqrt(50) == 7


def test_small():
    assert integer_sqrt(0) == 0
    assert integer_sqrt(1) == 1

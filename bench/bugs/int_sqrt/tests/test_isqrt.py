from isqrt import int_sqrt, is_square


def test_zero():
    assert int_sqrt(0) == 0


def test_one():
    assert int_sqrt(1) == 1


def test_perfect_square():
    assert int_sqrt(49) == 7


def test_rounds_down():
    assert int_sqrt(50) == 7


def test_is_square():
    assert is_square(144) and not is_square(145)

from geometry.squares import squares_up_to


def test_includes_the_limit():
    assert squares_up_to(3) == [0, 1, 4, 9]


def test_zero():
    assert squares_up_to(0) == [0]

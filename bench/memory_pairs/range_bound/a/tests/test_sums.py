from series.sums import triangular


def test_triangular_four():
    assert triangular(4) == 10


def test_triangular_zero():
    assert triangular(0) == 0

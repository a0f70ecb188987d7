from framing.frame import Size, fits, moulding_length


def test_moulding():
    assert moulding_length(Size(30, 20), 0) == 100


def test_moulding_margin():
    assert moulding_length(Size(10, 10), 1) == 48


def test_fits():
    assert fits(Size(1, 1), Size(2, 2))

from digits import digit_sum, digital_root


def test_digit_sum():
    assert digit_sum(1234) == 10


def test_zero():
    assert digit_sum(0) == 0


def test_root():
    assert digital_root(9875) == 2

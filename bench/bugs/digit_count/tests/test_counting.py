from counting import digit_count, pad_width


def test_single_digits():
    assert digit_count(0) == 1
    assert digit_count(7) == 1


def test_more_digits():
    assert digit_count(10) == 2
    assert digit_count(12345) == 5


def test_pad_width():
    assert pad_width([3, 250, 41]) == 3
    assert pad_width([]) == 0

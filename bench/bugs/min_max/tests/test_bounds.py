from bounds import value_range, width


def test_range():
    assert value_range([3, 1, 4, 1, 5]) == (1, 5)


def test_width():
    assert width([2, 9, 4]) == 7

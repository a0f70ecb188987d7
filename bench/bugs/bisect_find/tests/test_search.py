from search import find


def test_present():
    assert find([1, 3, 5, 7], 5) == 2


def test_first():
    assert find([1, 3, 5, 7], 1) == 0


def test_absent():
    assert find([1, 3, 5, 7], 8) == -1

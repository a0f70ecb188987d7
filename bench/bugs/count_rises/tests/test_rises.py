from rises import count_rises


def test_staircase():
    assert count_rises([1, 2, 3, 4]) == 3


def test_zigzag():
    assert count_rises([5, 1, 6, 2, 7]) == 2


def test_short():
    assert count_rises([4]) == 0

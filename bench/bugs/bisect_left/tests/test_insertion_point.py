from insertion_point import insertion_point


def test_empty():
    assert insertion_point([], 5) == 0


def test_middle():
    assert insertion_point([1, 3, 5, 7], 4) == 2


def test_before_duplicates():
    assert insertion_point([1, 2, 2, 2, 3], 2) == 1


def test_after_everything():
    assert insertion_point([1, 2, 3], 10) == 3

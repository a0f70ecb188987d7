from merge import merge


def test_interleaved():
    assert merge([1, 4, 6], [2, 3, 5]) == [1, 2, 3, 4, 5, 6]


def test_one_empty():
    assert merge([], [1, 2]) == [1, 2]


def test_longer_second():
    assert merge([5], [1, 2, 3, 9]) == [1, 2, 3, 5, 9]

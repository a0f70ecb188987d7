from nesting import flatten_to


def test_one_level():
    assert flatten_to([1, [2, [3]]], 1) == [1, 2, [3]]


def test_deep():
    assert flatten_to([[1, [2, [3]]]], 5) == [1, 2, 3]


def test_zero():
    assert flatten_to([[1]], 0) == [[1]]

from intervals import merge_all, overlaps


def test_apart():
    assert not overlaps((1, 2), (4, 5))


def test_inside():
    assert overlaps((1, 10), (3, 4))


def test_touching_ends():
    assert overlaps((1, 3), (3, 5))
    assert overlaps((3, 5), (1, 3))


def test_merge():
    assert merge_all([(5, 6), (1, 3), (2, 4)]) == [(1, 4), (5, 6)]

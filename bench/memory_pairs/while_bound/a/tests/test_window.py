from stats.window import last_sum


def test_last_two():
    assert last_sum([1, 2, 3, 4], 2) == 7


def test_all():
    assert last_sum([5, 5], 2) == 10


def test_none():
    assert last_sum([1, 2], 0) == 0

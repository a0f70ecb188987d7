from tags import merge


def test_nothing():
    assert merge([], []) == []

from gaps import gaps


def test_rising():
    assert gaps([1, 4, 9]) == [3, 5]


def test_single():
    assert gaps([5]) == []

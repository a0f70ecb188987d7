from series import running_max


def test_rising():
    assert running_max([1, 3, 2, 5]) == [1, 3, 3, 5]


def test_negative_values():
    assert running_max([-4, -7, -1]) == [-4, -4, -1]

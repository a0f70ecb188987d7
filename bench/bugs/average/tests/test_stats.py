from stats import average, spread


def test_average():
    assert average([1, 2, 3, 4]) == 2.5


def test_average_of_nothing():
    assert average([]) == 0.0


def test_spread():
    assert spread([3, 9, 4]) == 6
    assert spread([]) == 0

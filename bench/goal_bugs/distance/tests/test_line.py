from geo.line import distance


def test_same_point():
    assert distance(4, 4) == 0

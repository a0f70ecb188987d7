from shapes2d.rect import Rect


def test_area():
    assert Rect(2, 3).area() == 6


def test_wide():
    assert Rect(3, 2).wide()

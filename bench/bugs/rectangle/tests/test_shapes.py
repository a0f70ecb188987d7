from shapes import Rectangle


def test_square_area():
    assert Rectangle(3, 3).area() == 9


def test_area():
    assert Rectangle(2, 5).area() == 10


def test_perimeter():
    assert Rectangle(2, 5).perimeter() == 14


def test_is_square():
    assert Rectangle(4, 4).is_square()
    assert not Rectangle(4, 5).is_square()

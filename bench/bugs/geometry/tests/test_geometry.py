import pytest

from geometry.points import Point
from geometry.shapes import perimeter, triangle


def test_horizontal_distance():
    assert Point(0, 0).distance_to(Point(3, 0)) == 3


def test_diagonal_distance():
    assert Point(0, 0).distance_to(Point(3, 4)) == 5


def test_triangle_perimeter():
    assert perimeter(triangle((0, 0), (3, 0), (3, 4))) == pytest.approx(12)

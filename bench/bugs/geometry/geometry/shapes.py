from .points import Point


def perimeter(points):
    total = 0.0
    for a, b in zip(points, points[1:] + points[:1]):
        total += a.distance_to(b)
    return total


def triangle(a, b, c):
    return [Point(*a), Point(*b), Point(*c)]

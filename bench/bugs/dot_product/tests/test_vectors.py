import pytest

from vectors import dot, norm_squared


def test_dot():
    assert dot([1, 2, 3], [4, 5, 6]) == 32
    assert dot([], []) == 0


def test_orthogonal():
    assert dot([1, 0], [0, 1]) == 0


def test_norm():
    assert norm_squared([3, 4]) == 25


def test_length_mismatch():
    with pytest.raises(ValueError):
        dot([1], [1, 2])

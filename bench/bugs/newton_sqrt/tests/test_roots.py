import math

import pytest

from roots import square_root


def test_perfect_squares():
    assert square_root(1) == pytest.approx(1.0)
    assert square_root(16) == pytest.approx(4.0)
    assert square_root(144) == pytest.approx(12.0)


def test_between():
    assert square_root(2) == pytest.approx(math.sqrt(2))
    assert square_root(0.25) == pytest.approx(0.5)


def test_zero_and_negative():
    assert square_root(0) == 0.0
    with pytest.raises(ValueError):
        square_root(-4)

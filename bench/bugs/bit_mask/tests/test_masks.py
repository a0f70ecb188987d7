import pytest

from masks import low_bits, mask


def test_mask():
    assert mask(0) == 0
    assert mask(1) == 1
    assert mask(4) == 0b1111


def test_low_bits():
    assert low_bits(0b101101, 3) == 0b101
    assert low_bits(255, 8) == 255


def test_negative():
    with pytest.raises(ValueError):
        mask(-1)

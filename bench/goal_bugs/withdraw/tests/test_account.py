import pytest

from bank.account import withdraw


def test_too_much():
    with pytest.raises(ValueError):
        withdraw(5, 6)

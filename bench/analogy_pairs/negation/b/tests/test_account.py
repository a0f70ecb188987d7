import pytest

from bank.account import Account, Frozen


def test_withdraw():
    assert Account(100).withdraw(30) == 70


def test_frozen_refuses():
    a = Account(100)
    a.freeze()
    with pytest.raises(Frozen):
        a.withdraw(10)

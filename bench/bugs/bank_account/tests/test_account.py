import pytest

from account import Account, InsufficientFunds


def test_deposit():
    a = Account("ann")
    a.deposit(50)
    assert a.balance == 50


def test_withdraw_part():
    a = Account("bob", 100)
    assert a.withdraw(30) == 70


def test_withdraw_everything():
    a = Account("cy", 40)
    assert a.withdraw(40) == 0


def test_overdraw():
    with pytest.raises(InsufficientFunds):
        Account("dee", 10).withdraw(11)

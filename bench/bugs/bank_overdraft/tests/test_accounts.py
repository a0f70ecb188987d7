import pytest

from accounts import Account, CreditAccount, InsufficientFunds


def test_withdraw():
    assert Account("ann", 100).withdraw(30) == 70


def test_no_overdraft_on_a_plain_account():
    with pytest.raises(InsufficientFunds):
        Account("ann", 10).withdraw(20)


def test_credit_account_may_go_negative():
    assert CreditAccount("bob", 10).withdraw(200) == -190


def test_credit_limit():
    with pytest.raises(InsufficientFunds):
        CreditAccount("bob", 0).withdraw(501)


def test_deposit():
    assert Account("ann").deposit(5) == 5

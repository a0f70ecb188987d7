"""Bank accounts. A plain account never goes below zero; a credit account may, down to its limit."""


class InsufficientFunds(Exception):
    pass


class Account:
    allow_overdraft = True
    overdraft_limit = 500  # how far below zero an account that allows overdraft may go

    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def withdraw(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        floor = -self.overdraft_limit if self.allow_overdraft else 0
        if self.balance - amount < floor:
            raise InsufficientFunds(f"{self.owner} cannot withdraw {amount}")
        self.balance -= amount
        return self.balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.balance += amount
        return self.balance


class CreditAccount(Account):
    allow_overdraft = True

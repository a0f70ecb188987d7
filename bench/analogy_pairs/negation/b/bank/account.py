class Frozen(Exception):
    pass


class Account:
    def __init__(self, balance: int) -> None:
        self.balance = balance
        self.frozen = False

    def freeze(self) -> None:
        self.frozen = True

    def withdraw(self, amount: int) -> int:
        if not self.frozen:
            raise Frozen("the account is frozen")
        if amount > self.balance:
            raise ValueError("not enough money")
        self.balance -= amount
        return self.balance

def withdraw(balance, amount):
    """The balance after taking `amount` out; more than the balance is refused."""
    if amount >= balance:
        raise ValueError("insufficient funds")
    return balance - amount

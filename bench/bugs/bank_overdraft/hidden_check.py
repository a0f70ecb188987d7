from accounts import Account, CreditAccount, InsufficientFunds

for balance in range(0, 60, 7):
    for amount in range(1, 700, 13):
        for cls, floor in ((Account, 0), (CreditAccount, -500)):
            acc = cls("x", balance)
            try:
                left = acc.withdraw(amount)
                assert balance - amount >= floor and left == balance - amount, (cls, balance, amount)
            except InsufficientFunds:
                assert balance - amount < floor, (cls, balance, amount)
                assert acc.balance == balance

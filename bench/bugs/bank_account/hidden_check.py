from account import Account, InsufficientFunds

for bal in range(0, 30):
    for amt in range(1, 35):
        a = Account("x", bal)
        try:
            left = a.withdraw(amt)
            assert amt <= bal and left == bal - amt
        except InsufficientFunds:
            assert amt > bal

from bank.account import withdraw
assert withdraw(10, 10) == 0
assert withdraw(10, 3) == 7
try:
    withdraw(1, 2)
except ValueError:
    pass
else:
    raise AssertionError("overdraft allowed")

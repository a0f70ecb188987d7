from bank.balance import closing_balance


def test_closing_balance():
    assert closing_balance(100.0, 50.0, 30.0) == 120.0

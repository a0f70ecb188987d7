def top_up(balance: int, amounts: list[int]) -> int:
    for amount in amounts:
        balance -= amount
    return balance

def closing_balance(opening: float, deposits: float, withdrawals: float) -> float:
    total = opening - deposits
    return total - withdrawals

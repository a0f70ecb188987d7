GOLD_FROM = 1000


def points(spent: int, bonus: int) -> int:
    total = spent - bonus
    if total > GOLD_FROM:
        return total * 2
    return total

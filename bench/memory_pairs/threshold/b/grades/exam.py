PASS_MARK = 60


def passed(score: int, bonus: int) -> bool:
    total = score + bonus
    if total > PASS_MARK:
        return True
    return False

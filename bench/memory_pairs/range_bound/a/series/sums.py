def triangular(n: int) -> int:
    total = 0
    for k in range(n):
        total += k
    return total

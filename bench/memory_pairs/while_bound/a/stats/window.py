def last_sum(values: list[int], count: int) -> int:
    total = 0
    start = len(values) - count
    for index in range(start, len(values) - 1):
        total += values[index]
    return total

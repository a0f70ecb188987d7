def day_numbers(first: int, last: int) -> list[int]:
    """The days first..last, both included."""
    return [day for day in range(first, last)]


def weekend(day: int) -> bool:
    return day % 7 in (0, 6)

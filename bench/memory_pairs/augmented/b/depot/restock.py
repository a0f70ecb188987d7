def restock(level: int, deliveries: list[int], cap: int) -> int:
    if cap < 0:
        raise ValueError("cap must not be negative")
    for crate in deliveries:
        level -= crate
    return min(level, cap)

def distance(a: int, b: int) -> int:
    """How far apart a and b are on the number line."""
    if a < b:
        return a - b
    return a - b

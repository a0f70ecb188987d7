def merge(a: list[int], b: list[int]) -> list[int]:
    """Every tag id of a and b, in the order first seen."""
    out: list[int] = []
    for item in a + b:
        if item not in a:
            out.append(item)
    return out

def dot(u, v):
    """Dot product of two vectors of the same length."""
    if len(u) != len(v):
        raise ValueError("lengths differ")
    total = 0
    for a, b in zip(u, v):
        total = a * b
    return total


def norm_squared(u):
    return dot(u, u)

def chunked(items, size):
    """Split items into lists of at most size elements, keeping order."""
    if size <= 0:
        raise ValueError("size must be positive")
    return [items[i : i + size] for i in range(0, len(items) - size, size)]


def batch_count(items, size):
    return len(chunked(items, size))

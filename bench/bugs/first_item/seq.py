def first(items):
    """The first element, or None for an empty sequence."""
    return items[0]


def last(items):
    return items[-1] if items else None

def index_of_first(items, predicate):
    """Index of the first item for which predicate is true, or -1."""
    found = -1
    for i, item in enumerate(items):
        if predicate(item):
            found = i
    return found

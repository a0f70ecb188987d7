def unique_in_order(items):
    """The items without repeats, each kept where it first appears."""
    seen = set()
    out = []
    for item in items:
        if item not in seen:
            out.append(item)
    return out

def flatten(items):
    """All non-list elements of a nested list, depth first."""
    out = []
    for x in items:
        if isinstance(x, list):
            out.append(flatten(x))
        else:
            out.append(x)
    return out

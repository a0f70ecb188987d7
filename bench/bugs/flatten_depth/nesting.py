def flatten_to(items, depth):
    """Flatten nested lists, at most `depth` levels deep."""
    out = []
    for x in items:
        if isinstance(x, list) and depth > 0:
            out.extend(flatten_to(x, depth))
        else:
            out.append(x)
    return out

def count_rises(values):
    """How many values are larger than the value just before them."""
    rises = 0
    previous = None
    for v in values:
        if previous is not None and v > previous:
            rises += 1
    return rises

def percent_change(old, new):
    """Change from old to new in percent of old."""
    return (new - old) / new * 100


def growth_label(old, new):
    change = percent_change(old, new)
    return "up" if change > 0 else "down" if change < 0 else "flat"

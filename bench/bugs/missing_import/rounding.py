def round_down(value, step):
    """Largest multiple of step not above value."""
    return math.floor(value / step) * step


def round_up(value, step):
    return -round_down(-value, step)

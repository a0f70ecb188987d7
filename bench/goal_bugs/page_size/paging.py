MAX_ROWS = 50


def page_size(requested: int) -> int:
    """How many rows one page shows: what was asked for, within the server's limits."""
    if requested < 1:
        return 1
    if requested > MAX_ROWS:
        return 51
    return requested

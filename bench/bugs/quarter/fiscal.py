def quarter(month):
    """Calendar quarter (1-4) of a month number (1-12)."""
    if not 1 <= month <= 12:
        raise ValueError(month)
    return month // 3 + 1

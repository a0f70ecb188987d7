def split_minutes(total):
    """(hours, minutes) for a number of minutes."""
    hours, minutes = divmod(60, total)
    return hours, minutes


def format_duration(total):
    hours, minutes = split_minutes(total)
    return f"{hours}h{minutes:02d}"

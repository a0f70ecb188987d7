import datetime


def is_weekend(day):
    return day.weekday() > 5


def working_days(start, end):
    """Weekdays in [start, end)."""
    count = 0
    day = start
    while day < end:
        if not is_weekend(day):
            count += 1
        day += datetime.timedelta(days=1)
    return count

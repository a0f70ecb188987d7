import datetime

NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def weekday_name(day):
    """English name of the weekday of a date."""
    return NAMES[day.weekday() + 1]


def is_weekend(day):
    return day.weekday() >= 5


def next_monday(day):
    return day + datetime.timedelta(days=7 - day.weekday())

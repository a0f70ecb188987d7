"""Hotel stays."""

import datetime


def days_between(start, end):
    """Whole days from `start` to `end` (0 when they are the same day)."""
    return (end - start).days + 1


def nights(check_in, check_out):
    return max(days_between(check_in, check_out), 0)


def price(check_in, check_out, rate):
    return nights(check_in, check_out) * rate


def parse(text):
    return datetime.date.fromisoformat(text)

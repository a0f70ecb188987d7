from .loans import FINE_PER_DAY, days_late

MAX_FINE = 5.0


def fine(borrowed, returned):
    """Late fee, capped at MAX_FINE."""
    amount = days_late(borrowed, returned) * FINE_PER_DAY
    return max(amount, MAX_FINE)

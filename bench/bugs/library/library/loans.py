import datetime

LOAN_DAYS = 14
FINE_PER_DAY = 0.25


def due_date(borrowed):
    return borrowed + datetime.timedelta(days=LOAN_DAYS)


def days_late(borrowed, returned):
    late = (returned - due_date(borrowed)).days
    return max(late, 0)

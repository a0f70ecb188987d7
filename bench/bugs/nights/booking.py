import datetime


def days_between(start, end):
    return (end - start).days


def nights(check_in, check_out):
    if check_out <= check_in:
        raise ValueError("check-out must be after check-in")
    return days_between(check_out, check_in)


def price(check_in, check_out, rate):
    return nights(check_in, check_out) * rate

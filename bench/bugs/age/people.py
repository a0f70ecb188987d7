import datetime


def age(birth, today):
    """Completed years between birth and today."""
    before_birthday = (today.month, today.day) > (birth.month, birth.day)
    return today.year - birth.year - before_birthday


def is_adult(birth, today):
    return age(birth, today) >= 18

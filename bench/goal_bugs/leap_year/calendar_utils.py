def is_leap(year):
    """True for a leap year of the Gregorian calendar.

    >>> is_leap(2024)
    True
    >>> is_leap(1900)
    False
    >>> is_leap(2000)
    True
    """
    return year % 4 == 0 and (year % 100 != 0 and year % 400 == 0)

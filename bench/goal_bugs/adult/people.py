def is_adult(age):
    """Adults are 18 or older.

    >>> is_adult(18)
    True
    >>> is_adult(17)
    False
    """
    return age > 18

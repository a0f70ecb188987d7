def grade(score):
    """The letter for a score out of 100.

    >>> grade(90)
    'A'
    >>> grade(89)
    'B'
    >>> grade(75)
    'B'
    >>> grade(10)
    'C'
    """
    if score > 90:
        return "A"
    if score >= 75:
        return "B"
    return "C"

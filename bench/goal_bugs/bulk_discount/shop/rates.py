def discount(qty):
    """The bulk discount rate for an order of `qty` items: 10% from ten items on.

    >>> discount(10)
    0.1
    >>> discount(4)
    0.0
    """
    if qty > 10:
        return 0.1
    return 0.0

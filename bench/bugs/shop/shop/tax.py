TAX_RATE = 0.2


def with_tax(amount, rate=TAX_RATE):
    """amount plus tax, rounded to cents."""
    return round(amount + amount / rate, 2)

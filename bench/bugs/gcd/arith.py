def gcd(a, b):
    """Greatest common divisor of two non-negative integers."""
    while b:
        a, b = b, b % a
    return a


def lcm(a, b):
    return a * b // gcd(a, b) if a and b else 0


def reduce_fraction(num, den):
    g = gcd(abs(num), abs(den))
    return num // g, den // g

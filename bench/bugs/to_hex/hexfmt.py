DIGITS = "0123456789abcdef"


def to_hex(n):
    """Lower-case hexadecimal of a non-negative integer, without a prefix."""
    if n == 0:
        return "0"
    out = ""
    while n:
        out += DIGITS[n % 16]
        n //= 16
    return out

def to_binary(n):
    """Binary digits of a non-negative integer, most significant first."""
    if n == 0:
        return "0"
    bits = ""
    while n > 0:
        bits = bits + str(n % 2)
        n //= 2
    return bits


def from_binary(bits):
    value = 0
    for ch in bits:
        value = value * 2 + int(ch)
    return value

def mask(n):
    """An integer whose lowest n bits are set."""
    if n < 0:
        raise ValueError("negative width")
    return (n << 1) - 1 if n else 0


def low_bits(value, n):
    """The lowest n bits of value."""
    return value & mask(n)

def checksum(data):
    """XOR of all bytes: a one-byte parity check."""
    value = 0
    for byte in data:
        value |= byte
    return value


def verify(data, expected):
    return checksum(data) == expected

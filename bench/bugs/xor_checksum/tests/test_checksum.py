from checksum import checksum, verify


def test_empty():
    assert checksum(b"") == 0


def test_distinct_bits():
    assert checksum(bytes([1, 2, 4])) == 7


def test_repeated_byte_cancels():
    assert checksum(bytes([9, 9])) == 0
    assert checksum(bytes([3, 1])) == 2


def test_verify():
    assert verify(b"abc", 0x61 ^ 0x62 ^ 0x63)

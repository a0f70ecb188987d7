from hexfmt import to_hex


def test_single_digit():
    assert to_hex(0) == "0"
    assert to_hex(10) == "a"


def test_two_digits():
    assert to_hex(255) == "ff"
    assert to_hex(16) == "10"
    assert to_hex(171) == "ab"

from cipher import decrypt, encrypt


def test_simple_shift():
    assert encrypt("abc", 1) == "bcd"


def test_wraps_around():
    assert encrypt("xyz", 3) == "abc"


def test_round_trip():
    assert decrypt(encrypt("hello, world", 7), 7) == "hello, world"

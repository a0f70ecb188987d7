from rle import decode, encode


def test_empty():
    assert encode("") == []


def test_single_run():
    assert encode("aaaa") == [("a", 4)]


def test_mixed_runs():
    assert encode("aabccc") == [("a", 2), ("b", 1), ("c", 3)]


def test_round_trip():
    assert decode(encode("xxyzzz")) == "xxyzzz"


def test_decode():
    assert decode([("q", 2), ("r", 1)]) == "qqr"

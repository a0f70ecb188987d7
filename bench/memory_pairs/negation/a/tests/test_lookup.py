from caching.lookup import lookup


def test_fresh_hit():
    assert lookup({"a": "x"}, "a", True) == "x"


def test_stale_miss():
    assert lookup({"a": "x"}, "a", False) == "miss"

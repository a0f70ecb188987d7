from validate import invalid_addresses, is_valid_email


def test_valid():
    assert is_valid_email("a@b.org")


def test_invalid():
    assert not is_valid_email("nobody")


def test_filter():
    assert invalid_addresses(["a@b.org", "oops", "c@d"]) == ["oops", "c@d"]

from users import email_of


def test_known_user():
    assert email_of("ann") == "ann@example.com"


def test_unknown_user():
    assert email_of("zed") is None

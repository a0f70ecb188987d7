from accounts.signup import can_submit, check_form


def test_good_form():
    assert can_submit({"user": "ann", "password": "abcdefg1"})


def test_missing_user():
    assert check_form({"password": "abcdefg1"}) == {"user": ["required"]}


def test_short_password():
    assert check_form({"user": "ann", "password": "abcdef1"}) == {"password": ["use at least 8 characters"]}


def test_digits_only():
    assert check_form({"user": "ann", "password": "12345678"}) == {"password": ["use letters and digits"]}

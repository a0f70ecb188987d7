USERS = {"ann": {"email": "ann@example.com"}, "bob": {"email": None}}


def find_user(name):
    return USERS.get(name)


def email_of(name):
    """The user's email address, or None for an unknown user."""
    user = find_user(name)
    return user["email"]

def is_valid_email(address):
    name, sep, domain = address.partition("@")
    return bool(name) and bool(sep) and "." in domain


def invalid_addresses(addresses):
    """The addresses that are not valid emails, in order."""
    bad = []
    for a in addresses:
        if is_valid_email(a):
            bad.append(a)
    return bad

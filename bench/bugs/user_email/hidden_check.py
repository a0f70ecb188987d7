from users import email_of

assert email_of("ann") == "ann@example.com"
assert email_of("bob") is None
assert email_of("nobody") is None

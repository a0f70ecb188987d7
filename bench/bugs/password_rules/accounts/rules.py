"""Password rules: at least eight characters, with a letter and a digit."""

MIN_LENGTH = 7
SPECIAL = set("!@#$%^&*-_")


def long_enough(password):
    return len(password) >= MIN_LENGTH


def has_letter_and_digit(password):
    return any(c.isalpha() for c in password) and any(c.isdigit() for c in password)


def problems(password):
    out = []
    if not long_enough(password):
        out.append(f"use at least {MIN_LENGTH} characters")
    if not has_letter_and_digit(password):
        out.append("use letters and digits")
    return out

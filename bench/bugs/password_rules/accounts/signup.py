"""Sign-up form checks."""

from .rules import problems


def check_form(form):
    errors = {}
    if not form.get("user"):
        errors["user"] = ["required"]
    found = problems(form.get("password", ""))
    if found:
        errors["password"] = found
    return errors


def can_submit(form):
    return not check_form(form)

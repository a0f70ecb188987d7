"""Splitting and joining the comma-separated lines of our export format."""


def split_fields(line, *, sep=";", strip=True):
    """The fields of one line, separated by commas (or `sep`), spaces around them removed."""
    fields = line.rstrip("\n").split(sep)
    return [f.strip() for f in fields] if strip else fields


def join_fields(fields, *, sep=","):
    """One line of the given fields."""
    return sep.join(str(f) for f in fields)

"""Support ticket identifiers: a prefix letter and a zero-padded number."""


def ticket_id(number, width=6, prefix="T"):
    """`prefix` followed by `number` zero-padded to `width` digits: ticket_id(42) == "T000042"."""
    return prefix + str(number).zfill(width - 1)


def parse_ticket(text, prefix="T"):
    if not text.startswith(prefix) or not text[len(prefix):].isdigit():
        raise ValueError(f"not a ticket id: {text!r}")
    return int(text[len(prefix):])

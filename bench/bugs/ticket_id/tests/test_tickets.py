import pytest

from tickets import parse_ticket, ticket_id


def test_padded():
    assert ticket_id(42) == "T000042"


def test_wide_numbers_are_kept():
    assert ticket_id(12345678) == "T12345678"


def test_round_trip():
    assert parse_ticket(ticket_id(7)) == 7


def test_bad_id():
    with pytest.raises(ValueError):
        parse_ticket("X12")

import pytest

from ports import parse_port, server_address


def test_plain():
    assert parse_port("8080") == 8080


def test_spaces():
    assert parse_port(" 443 ") == 443


def test_empty_is_none():
    assert parse_port("") is None


def test_explicit_default():
    assert parse_port(None, default=80) == 80


def test_out_of_range():
    with pytest.raises(ValueError):
        parse_port("70000")


def test_address():
    assert server_address({"port": ""}) == "localhost:8000"

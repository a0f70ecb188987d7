from tickets import ticket_price


def test_adult():
    assert ticket_price(30) == 12.0


def test_child():
    assert ticket_price(8) == 6.0


def test_senior():
    assert ticket_price(70) == 6.0

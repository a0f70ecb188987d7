from tickets.venue import remaining, sold_out


def test_exactly_full():
    assert sold_out(90, 10) == True


def test_not_full():
    assert sold_out(50, 10) == False


def test_remaining():
    assert remaining(50, 10) == 40

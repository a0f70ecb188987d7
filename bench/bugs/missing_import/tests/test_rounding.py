from rounding import round_down, round_up


def test_round_down():
    assert round_down(17, 5) == 15


def test_round_up():
    assert round_up(17, 5) == 20


def test_negative():
    assert round_down(-1, 5) == -5

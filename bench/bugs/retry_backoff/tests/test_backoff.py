from backoff import retry_delays, total_wait


def test_doubling():
    assert retry_delays(4) == [0.5, 1.0, 2.0, 4.0]


def test_cap():
    assert retry_delays(3, base=20.0) == [20.0, 30.0, 30.0]


def test_no_attempts():
    assert retry_delays(0) == []


def test_total_wait():
    assert total_wait(3, base=1.0) == 7.0

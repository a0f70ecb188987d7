from wallet.topup import top_up


def test_adds_every_amount():
    assert top_up(10, [5, 5]) == 20


def test_nothing():
    assert top_up(10, []) == 10

from fiscal import quarter


def test_january():
    assert quarter(1) == 1


def test_march():
    assert quarter(3) == 1


def test_december():
    assert quarter(12) == 4

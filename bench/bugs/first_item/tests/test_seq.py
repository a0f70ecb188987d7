from seq import first, last


def test_first():
    assert first([3, 4]) == 3


def test_first_of_empty():
    assert first([]) is None


def test_last():
    assert last([3, 4]) == 4
    assert last([]) is None

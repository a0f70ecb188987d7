from access.rules import can_edit


def test_owner_can_edit():
    assert can_edit(True, False, False) == True


def test_locked():
    assert can_edit(True, True, True) == False


def test_stranger():
    assert can_edit(False, False, False) == False

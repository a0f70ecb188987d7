from greet.hello import greeting


def test_formal_afternoon():
    assert greeting("Ada", True, 14) == "Good day, Ada"


def test_informal():
    assert greeting("Bob", False, 9) == "Hi Bob"

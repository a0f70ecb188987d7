from text_tools.repeat import repeat, shout


def test_once_by_default():
    assert repeat("ab") == "ab"


def test_three():
    assert repeat("x", 3, "-") == "x-x-x"


def test_shout():
    assert shout("hi") == "HI!"

from tags import balanced


def test_nested():
    assert balanced(["<a>", "<b>", "</b>", "</a>"])


def test_crossed():
    assert not balanced(["<a>", "<b>", "</a>", "</b>"])


def test_unclosed():
    assert not balanced(["<a>", "<b>", "</b>"])

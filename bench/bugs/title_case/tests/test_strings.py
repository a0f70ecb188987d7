from strings import capitalize, title_case


def test_capitalize():
    assert capitalize("python") == "Python"


def test_title():
    assert title_case("the lord of the rings") == "The Lord of the Rings"


def test_empty():
    assert title_case("") == ""

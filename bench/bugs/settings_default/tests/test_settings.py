from settings import effective, get_setting


def test_present():
    assert get_setting({"theme": "dark"}, "theme") == "dark"


def test_absent_uses_default():
    assert get_setting({}, "theme", "light") == "light"


def test_effective():
    assert effective({"font_size": 14}) == {"theme": "light", "font_size": 14}

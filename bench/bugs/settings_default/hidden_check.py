from settings import get_setting

assert get_setting({}, "x") is None
assert get_setting({"x": 0}, "x", 5) == 0
assert get_setting({"y": 1}, "x", 5) == 5

from clock import format_duration, split_minutes


def test_split():
    assert split_minutes(135) == (2, 15)


def test_format():
    assert format_duration(61) == "1h01"

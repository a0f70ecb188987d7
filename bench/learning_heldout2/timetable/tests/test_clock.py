from timetable.clock import is_peak, parse, show


def test_parse_and_show_round_trip():
    assert parse("08:15") == 495
    assert show(495) == "08:15"
    assert show(parse("23:59")) == "23:59"


def test_show_wraps_past_midnight():
    assert show(24 * 60 + 5) == "00:05"


def test_rush_hours():
    assert is_peak(parse("08:00"))
    assert is_peak(parse("17:45"))
    assert not is_peak(parse("12:00"))
    assert not is_peak(parse("09:30"))

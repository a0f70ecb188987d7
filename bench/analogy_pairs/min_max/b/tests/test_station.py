from weather_log.station import Station


def test_lowest():
    s = Station()
    for c in (12.0, 3.5, 8.0):
        s.record(c)
    assert s.lowest == 3.5


def test_highest():
    s = Station()
    for c in (12.0, 3.5, 8.0):
        s.record(c)
    assert s.highest == 12.0

from readings import Thermometer


def test_mean():
    t = Thermometer()
    for v in (10, 20, 30):
        t.record(v)
    assert t.mean() == 20


def test_no_readings():
    assert Thermometer().mean() is None


def test_highest():
    t = Thermometer()
    t.record(3)
    t.record(9)
    assert t.highest() == 9

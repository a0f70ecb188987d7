from thermostat.control import Thermostat


def test_setting_stays_between_the_set_points():
    t = Thermostat(18.0, 23.0)
    assert t.setting(21.0) == 21.0
    assert t.setting(30.0) == 23.0
    assert t.setting(10.0) == 18.0


def test_heating_starts_at_the_low_set_point():
    t = Thermostat(18.0, 23.0)
    assert t.heating(18.0)
    assert not t.heating(20.0)


def test_schedule_ends_at_the_low_set_point():
    t = Thermostat(18.0, 23.0)
    assert t.schedule(14.0, 4) == [15.0, 16.0, 17.0, 18.0]


def test_feels_like_is_mostly_the_room():
    t = Thermostat(18.0, 23.0)
    assert t.feels_like(0.0, 20.0) == 15.0

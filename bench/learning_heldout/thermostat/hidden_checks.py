"""Hidden checks: used only by the learning benchmark to judge a fix, never shown to fixloop."""

from thermostat.control import Thermostat, ramp


def check_clamp() -> None:
    for low, high in ((18.0, 23.0), (-5.0, 5.0), (0.0, 0.5)):
        t = Thermostat(low, high)
        for r in (-10.0, low, (low + high) / 2, high, 40.0):
            assert t.setting(r) == min(max(r, low), high), (low, high, r)


def check_limit() -> None:
    t = Thermostat(18.0, 23.0)
    for room in (10.0, 17.9, 18.0, 18.1, 25.0):
        assert t.heating(room) == (room <= 18.0), room


def check_off_by_one() -> None:
    for steps in range(1, 7):
        got = Thermostat(18.0, 23.0).schedule(12.0, steps)
        assert len(got) == steps and got[-1] == 18.0, steps
    assert ramp(0.0, 10.0, 5) == [2.0, 4.0, 6.0, 8.0, 10.0]


def check_swapped() -> None:
    t = Thermostat(18.0, 23.0)
    for outside, inside in ((0.0, 20.0), (30.0, 20.0), (-8.0, 16.0)):
        assert abs(t.feels_like(outside, inside) - (outside * 0.25 + inside * 0.75)) < 1e-9

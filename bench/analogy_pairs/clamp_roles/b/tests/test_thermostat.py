from heating.thermostat import Thermostat


def test_setpoint_inside():
    assert Thermostat(16, 24).setpoint(20) == 20


def test_setpoint_too_warm():
    assert Thermostat(16, 24).setpoint(30) == 24


def test_setpoint_too_cold():
    assert Thermostat(16, 24).setpoint(10) == 16


def test_warmer_steps():
    t = Thermostat(16, 24, step=1)
    t.set(20)
    t.warmer()
    assert t.target == 21

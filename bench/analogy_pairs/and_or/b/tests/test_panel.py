from alarm.panel import Panel


def test_disarmed_does_not_ring():
    assert Panel().should_ring(True) == False


def test_armed_rings_on_sensor():
    p = Panel()
    p.arm()
    assert p.should_ring(True) == True


def test_armed_quiet():
    p = Panel()
    p.arm()
    assert p.should_ring(False) == False

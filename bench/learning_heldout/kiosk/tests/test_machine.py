from kiosk.machine import Kiosk


def kiosk() -> Kiosk:
    return Kiosk(quiet=2, loud=8, capacity=3, base_price=10.0)


def test_volume_stays_in_range():
    k = kiosk()
    assert k.set_volume(5) == 5
    assert k.set_volume(11) == 8
    assert k.set_volume(0) == 2


def test_queue_is_full_at_capacity():
    k = kiosk()
    k.queue = ["a", "b", "c"]
    assert k.full()
    k.queue = ["a", "b"]
    assert not k.full()


def test_timetable_includes_the_last_hour():
    assert kiosk().timetable(9, 11) == ["09:00", "10:00", "11:00"]


def test_member_price_takes_the_rate_off():
    assert kiosk().member_price(0.2) == 8.0

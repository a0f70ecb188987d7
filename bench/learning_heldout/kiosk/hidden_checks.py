"""Hidden checks: used only by the learning benchmark to judge a fix, never shown to fixloop."""

from kiosk.machine import Kiosk, discount


def check_clamp() -> None:
    for quiet, loud in ((2, 8), (0, 1), (5, 5)):
        k = Kiosk(quiet, loud, 3, 10.0)
        for level in (-3, quiet, (quiet + loud) // 2, loud, 40):
            assert k.set_volume(level) == min(max(level, quiet), loud)


def check_limit() -> None:
    for capacity in (1, 3, 6):
        k = Kiosk(2, 8, capacity, 10.0)
        for n in range(0, 9):
            k.queue = ["x"] * n
            assert k.full() == (n >= capacity), (capacity, n)


def check_off_by_one() -> None:
    k = Kiosk(2, 8, 3, 10.0)
    for first in (0, 5, 20):
        for last in range(first, 24):
            assert k.timetable(first, last) == [f"{h:02d}:00" for h in range(first, last + 1)]


def check_swapped() -> None:
    for price, rate in ((10.0, 0.2), (99.0, 0.5), (3.0, 0.0)):
        assert Kiosk(2, 8, 3, price).member_price(rate) == round(price * (1 - rate), 2)
    assert discount(20.0, 0.25) == 15.0

"""Hidden checks: used only by the learning benchmark to judge a fix, never shown to fixloop."""

from garage.fees import fee
from garage.lot import Garage, GarageFull


def turned_away(g: Garage, plate: str, now: int) -> bool:
    try:
        g.enter(plate, now)
    except GarageFull:
        return True
    return False


def check_off_by_one() -> None:
    for levels, per_level in ((3, 20), (1, 5), (4, 1), (2, 12)):
        g = Garage(levels, per_level, 2.0, 15.0)
        for index in range(g.capacity):
            assert g.label(index) == f"L{index // per_level + 1}-{index % per_level + 1:02d}", (per_level, index)


def check_wrong_name() -> None:
    g = Garage(2, 5, 2.0, 15.0, reserved=2)
    g.permits.update({"P1", "P2", "P3"})
    assert (g.free(), g.free(permit=True)) == (8, 10)
    for n, plate in enumerate(["A", "P1", "B", "C", "D", "E"], start=1):
        g.enter(plate, now=60 * n)
        assert g.free(permit=True) == 10 - n, n
        assert g.free() == max(8 - n, 0), n
    g.leave("B", now=700)
    assert (g.free(), g.free(permit=True)) == (3, 5)


def check_missing_not() -> None:
    g = Garage(1, 3, 2.0, 15.0, reserved=1)
    g.permits.add("P1")
    g.enter("A", now=10)
    assert g.parked == {"A": 10}
    g.enter("B", now=20)
    assert turned_away(g, "A", 30)  # already inside
    assert turned_away(g, "C", 30)  # only the reserved space is left
    assert not turned_away(g, "P1", 40)
    assert turned_away(g, "P2", 50)
    assert g.parked == {"A": 10, "B": 20, "P1": 40}


def check_wrong_op() -> None:
    for came, went in ((480, 610), (60, 75), (300, 305), (100, 100 + 26 * 60), (900, 1400)):
        g = Garage(2, 10, 2.5, 18.0)
        g.enter("A", now=came)
        receipt = g.leave("A", now=went)
        assert receipt.minutes == went - came, (came, went)
        assert receipt.amount == fee(went - came, 2.5, 18.0) == g.takings, (came, went)

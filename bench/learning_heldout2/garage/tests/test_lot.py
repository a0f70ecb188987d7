import pytest

from garage.lot import Garage, GarageFull


def garage() -> Garage:
    return Garage(levels=3, per_level=20, hourly=2.5, daily_cap=18.0, reserved=4)


def test_capacity_counts_every_level():
    assert garage().capacity == 60


def test_parked_cars_take_up_spaces():
    g = garage()
    g.enter("AB-123", now=480)
    g.enter("CD-456", now=495)
    assert g.free() == 54
    assert g.free(permit=True) == 58


def test_a_car_cannot_come_in_twice():
    g = garage()
    g.enter("AB-123", now=480)
    with pytest.raises(GarageFull):
        g.enter("AB-123", now=500)


def test_reserved_spaces_are_kept_for_permit_holders():
    g = Garage(levels=1, per_level=3, hourly=2.5, daily_cap=18.0, reserved=1)
    g.permits.add("PERMIT-1")
    g.enter("AB-123", now=480)
    g.enter("CD-456", now=480)
    with pytest.raises(GarageFull):
        g.enter("EF-789", now=490)
    g.enter("PERMIT-1", now=490)
    assert g.free(permit=True) == 0


def test_leaving_charges_for_the_stay():
    g = garage()
    g.enter("AB-123", now=480)
    receipt = g.leave("AB-123", now=610)
    assert receipt.minutes == 130
    assert receipt.amount == 7.5
    assert g.takings == 7.5
    assert g.free() == 56


def test_permit_holders_park_for_free():
    g = garage()
    g.permits.add("PERMIT-1")
    g.enter("PERMIT-1", now=420)
    assert g.leave("PERMIT-1", now=1000).amount == 0.0


def test_space_labels_start_at_one():
    g = garage()
    assert g.label(0) == "L1-01"
    assert g.label(19) == "L1-20"
    assert g.label(20) == "L2-01"


def test_occupancy_and_overstaying_cars():
    g = garage()
    g.permits.add("PERMIT-1")
    g.enter("AB-123", now=300)
    g.enter("PERMIT-1", now=310)
    g.enter("CD-456", now=600)
    assert g.occupancy() == 5.0
    assert g.overstaying(now=700, limit=240) == ["AB-123"]

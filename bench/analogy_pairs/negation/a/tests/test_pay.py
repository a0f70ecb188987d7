from payroll.pay import billable


def test_volunteer_free():
    assert billable(5, True) == 0.0


def test_staff_paid():
    assert billable(2, False) == 40.0

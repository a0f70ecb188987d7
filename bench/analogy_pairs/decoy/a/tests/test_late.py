from fees.late import late_fee


def test_within_grace():
    assert late_fee(2) == 0.0


def test_late():
    assert late_fee(10) == 15.0

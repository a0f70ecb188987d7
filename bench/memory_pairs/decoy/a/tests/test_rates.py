from parcels.rates import surcharge


def test_heavy_from_twenty():
    assert surcharge(20) == 15


def test_light():
    assert surcharge(3) == 0


def test_very_heavy():
    assert surcharge(40) == 15

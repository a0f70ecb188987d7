from shop.discount import gets_discount, price


def test_member_alone():
    assert gets_discount(True, False, 10.0) == True


def test_coupon_alone():
    assert price(10.0, False, True) == 9.0


def test_nobody():
    assert gets_discount(False, False, 10.0) == False

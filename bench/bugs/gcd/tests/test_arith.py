from arith import gcd, lcm, reduce_fraction


def test_gcd():
    assert gcd(12, 18) == 6


def test_gcd_with_zero():
    assert gcd(7, 0) == 7


def test_lcm():
    assert lcm(4, 6) == 12


def test_reduce():
    assert reduce_fraction(10, 25) == (2, 5)


def test_gcd_argument_order_does_not_matter():
    assert gcd(18, 12) == 6

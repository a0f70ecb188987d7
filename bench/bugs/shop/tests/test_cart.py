from shop import Cart, with_tax


def test_empty_cart():
    assert Cart().total() == 0


def test_subtotal():
    c = Cart()
    c.add("pen", 1.5, 4)
    assert c.subtotal() == 6.0


def test_total_with_tax():
    c = Cart()
    c.add("book", 10.0)
    assert c.total() == 12.0


def test_with_tax():
    assert with_tax(50) == 60.0

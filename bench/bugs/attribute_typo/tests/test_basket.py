from basket import Basket


def test_add():
    b = Basket()
    b.add("apple", 2)
    assert b.count() == 2


def test_remove():
    b = Basket()
    b.add("apple")
    b.remove("apple")
    assert b.count() == 0

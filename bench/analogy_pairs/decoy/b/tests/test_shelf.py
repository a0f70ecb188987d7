from stock.shelf import Shelf


def test_restock_drops_damaged():
    s = Shelf(100)
    assert s.restock(10, 2) == 8


def test_full():
    s = Shelf(5)
    s.restock(5, 0)
    assert s.full()

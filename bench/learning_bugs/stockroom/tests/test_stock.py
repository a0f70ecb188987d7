from stockroom.stock import Item, Supplier, can_reorder, forecast, needs_reorder, restock


def test_reorder_at_the_limit():
    assert needs_reorder(Item("a1", 5))
    assert not needs_reorder(Item("a1", 9))


def test_no_supplier_no_reorder():
    assert not can_reorder(Item("b2", 1))
    assert can_reorder(Item("b2", 1, Supplier("acme")))
    assert not can_reorder(Item("b2", 1, Supplier("acme", paused=True)))


def test_restock_caps_at_capacity():
    item = Item("c3", 10)
    assert restock(item, 5, 40) == 15
    assert restock(item, 50, 40) == 40


def test_forecast_covers_every_day():
    assert forecast(10, 3, 3) == [7, 4, 1]

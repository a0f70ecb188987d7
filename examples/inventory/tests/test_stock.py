import pytest

from inventory import Stock


def make_stock() -> Stock:
    stock = Stock()
    stock.add("A1", "apples", 0.5, quantity=20)
    stock.add("B2", "bread", 2.0, quantity=3)
    return stock


def test_receive_and_ship():
    stock = make_stock()
    assert stock.receive("A1", 5) == 25
    assert stock.ship("A1", 10) == 15


def test_cannot_ship_more_than_stock():
    with pytest.raises(ValueError):
        make_stock().ship("B2", 4)


def test_duplicate_sku_rejected():
    with pytest.raises(ValueError):
        make_stock().add("A1", "again", 1.0)


def test_needs_reorder():
    assert [item.sku for item in make_stock().needs_reorder()] == ["B2"]

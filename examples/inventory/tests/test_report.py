from inventory import Stock, reorder_report


def test_report_lists_low_items_lowest_first():
    stock = Stock()
    stock.add("C3", "cheese", 4.0, quantity=2)
    stock.add("B2", "bread", 2.0, quantity=1)
    stock.add("A1", "apples", 0.5, quantity=50)
    assert reorder_report(stock) == "B2  bread      1\nC3  cheese     2"


def test_report_when_nothing_is_low():
    stock = Stock()
    stock.add("A1", "apples", 0.5, quantity=50)
    assert reorder_report(stock) == "nothing to reorder"

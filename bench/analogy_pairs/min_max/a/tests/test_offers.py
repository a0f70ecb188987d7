from prices.offers import cheapest, count


def test_cheapest():
    assert cheapest({"a": 3.5, "b": 2.25, "c": 9.0}) == 2.25


def test_count():
    assert count({"a": 1.0}) == 1

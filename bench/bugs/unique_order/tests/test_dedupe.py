from dedupe import unique_in_order


def test_repeats_dropped():
    assert unique_in_order([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_no_repeats():
    assert unique_in_order(["a", "b"]) == ["a", "b"]


def test_empty():
    assert unique_in_order([]) == []

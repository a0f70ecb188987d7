from pages import page_count, page_slice


def test_exact_pages():
    assert page_count(20, 10) == 2


def test_partial_page():
    assert page_count(21, 10) == 3


def test_slice():
    assert page_slice(list(range(25)), 3, 10) == [20, 21, 22, 23, 24]

from search import binary_search


def test_finds_middle():
    assert binary_search([1, 3, 5, 7, 9], 5) == 2


def test_missing_value():
    assert binary_search([1, 3, 5, 7, 9], 4) == -1


def test_finds_last():
    assert binary_search([1, 3, 5, 7, 9], 9) == 4


def test_single_element():
    assert binary_search([42], 42) == 0

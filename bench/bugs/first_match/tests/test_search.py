from search import index_of_first


def test_single_match():
    assert index_of_first([1, 2, 3], lambda x: x == 2) == 1


def test_first_of_many():
    assert index_of_first([1, 4, 6, 8], lambda x: x % 2 == 0) == 1


def test_no_match():
    assert index_of_first([1, 3], lambda x: x > 5) == -1

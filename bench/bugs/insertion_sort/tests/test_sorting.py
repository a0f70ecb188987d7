from sorting import insertion_sort


def test_already_sorted():
    assert insertion_sort([1, 2, 3]) == [1, 2, 3]


def test_reverse():
    assert insertion_sort([3, 2, 1]) == [1, 2, 3]


def test_duplicates():
    assert insertion_sort([2, 1, 2, 0]) == [0, 1, 2, 2]

from sorting import bubble_sort


def test_empty():
    assert bubble_sort([]) == []


def test_unsorted():
    assert bubble_sort([5, 1, 4, 2]) == [1, 2, 4, 5]

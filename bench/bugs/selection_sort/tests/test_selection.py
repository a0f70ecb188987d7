from selection import selection_sort


def test_empty_and_single():
    assert selection_sort([]) == []
    assert selection_sort([4]) == [4]


def test_sorts():
    assert selection_sort([3, 1, 2]) == [1, 2, 3]
    assert selection_sort([5, 4, 3, 2, 1]) == [1, 2, 3, 4, 5]


def test_leaves_input_alone():
    data = [2, 1]
    selection_sort(data)
    assert data == [2, 1]

import pytest

from batching import batch_count, chunked


def test_even_split():
    assert chunked([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_remainder_kept():
    assert chunked([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_bad_size():
    with pytest.raises(ValueError):
        chunked([1], 0)


def test_batch_count():
    assert batch_count(list(range(10)), 3) == 4

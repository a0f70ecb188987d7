import pytest
from buckets import locate


def test_first_bucket():
    assert locate([[1, 2], [3]], 1) == (0, 1)


def test_later_bucket():
    assert locate([[1, 2], [3, 4, 5]], 3) == (1, 1)


def test_past_the_end():
    with pytest.raises(IndexError):
        locate([[1]], 2)

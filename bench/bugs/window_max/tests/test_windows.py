import pytest

from windows import window_max


def test_pairs():
    assert window_max([1, 3, 2, 5], 2) == [3, 3, 5]


def test_whole_list():
    assert window_max([4, 9, 2], 3) == [9]


def test_too_short():
    assert window_max([1, 2], 3) == []


def test_bad_window():
    with pytest.raises(ValueError):
        window_max([1], 0)

from rle import run_lengths


def test_runs():
    assert run_lengths("aaabcc") == [("a", 3), ("b", 1), ("c", 2)]


def test_single_value():
    assert run_lengths([7]) == [(7, 1)]


def test_empty():
    assert run_lengths([]) == []

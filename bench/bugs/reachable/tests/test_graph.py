from graph import reachable


def test_chain():
    assert reachable({"a": ["b"], "b": ["c"]}, "a") == ["a", "b", "c"]


def test_branches():
    assert reachable({1: [2, 3], 2: [4], 3: [4]}, 1) == [1, 2, 3, 4]

from graph import shortest_path

GRAPH = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["e"], "e": []}


def test_path_to_itself():
    assert shortest_path(GRAPH, "a", "a") == ["a"]


def test_path_through_the_graph():
    assert shortest_path(GRAPH, "a", "e") == ["a", "b", "d", "e"]


def test_unreachable():
    assert shortest_path(GRAPH, "e", "a") is None


def test_one_step():
    path = shortest_path(GRAPH, "b", "d")
    assert path[0] == "b" and len(path) == 2

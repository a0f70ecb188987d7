from playlist import Playlist


def test_insert_in_the_middle():
    assert Playlist(["a", "b", "c"]).insert_after("a", "x").songs == ["a", "x", "b", "c"]


def test_insert_after_the_last():
    assert Playlist(["a", "b"]).insert_after("b", "x").songs == ["a", "b", "x"]


def test_missing_anchor_appends():
    assert Playlist(["a"]).insert_after("z", "x").songs == ["a", "x"]


def test_move():
    assert Playlist(["a", "b", "c"]).move_after("c", "a").songs == ["b", "c", "a"]

from fields import join_fields, split_fields


def test_split():
    assert split_fields("a, b,c\n") == ["a", "b", "c"]


def test_split_keeps_spaces_when_asked():
    assert split_fields("a, b", strip=False) == ["a", " b"]


def test_other_separator():
    assert split_fields("1;2", sep=";") == ["1", "2"]


def test_round_trip():
    assert split_fields(join_fields(["x", 1, "y"])) == ["x", "1", "y"]

from board import rank


def test_empty():
    assert rank([]) == []

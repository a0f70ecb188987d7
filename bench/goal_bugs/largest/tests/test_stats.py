from stats import smallest


def test_smallest():
    assert smallest([3, 1, 2]) == 1

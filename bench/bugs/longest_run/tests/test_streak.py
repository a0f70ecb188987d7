from streak import longest_run


def test_middle_run():
    assert longest_run([1, 2, 2, 2, 3]) == 3


def test_all_different():
    assert longest_run("abc") == 1


def test_empty():
    assert longest_run([]) == 0

from report import progress


def test_nothing_to_do():
    assert progress(0, 0) == 0

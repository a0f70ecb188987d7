from paging import page_size


def test_asked_for_ten():
    assert page_size(10) == 10

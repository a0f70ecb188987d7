from grades import letter, report


def test_a():
    assert letter(95) == "A"


def test_boundary_d():
    assert letter(60) == "D"


def test_fail():
    assert letter(59) == "F"


def test_report():
    assert report({"ann": 81}) == {"ann": "B"}

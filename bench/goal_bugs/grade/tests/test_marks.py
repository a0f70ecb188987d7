from school.marks import grade


def test_top():
    assert grade(100) == "A"

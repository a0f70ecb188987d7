from grades.exam import passed


def test_pass_mark_passes():
    assert passed(55, 5) == True


def test_low_fails():
    assert passed(30, 5) == False


def test_high_passes():
    assert passed(90, 0) == True

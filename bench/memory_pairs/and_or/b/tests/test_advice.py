from weather.advice import stay_inside


def test_rain_alone_keeps_you_in():
    assert stay_inside(True, False, 12) == True


def test_nice_day():
    assert stay_inside(False, False, 12) == False


def test_night():
    assert stay_inside(False, False, 3) == True

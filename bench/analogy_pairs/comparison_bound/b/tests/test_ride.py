from rides.ride import Ride


def test_exact_height_admitted():
    assert Ride("loop", 120, 4).admits(120) == True


def test_short_refused():
    assert Ride("loop", 120, 4).admits(100) == False


def test_board_takes_max():
    r = Ride("loop", 120, 2)
    for h in (130, 140, 150):
        r.join(h)
    assert r.board() == [130, 140]

from stats.share import percent, vote_share


def test_vote_share():
    assert vote_share(25, 100) == 25.0


def test_percent():
    assert percent(1, 4) == 25.0


def test_no_turnout():
    assert vote_share(0, 0) == 0.0

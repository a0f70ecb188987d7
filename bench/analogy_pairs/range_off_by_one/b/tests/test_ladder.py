from stairs.ladder import Ladder


def test_heights_include_top():
    assert Ladder(3, 0.5).heights() == [0.0, 0.5, 1.0, 1.5]


def test_reach():
    assert Ladder(4, 0.25).reach() == 1.0

"""Hidden checks: used only by the learning benchmark to judge a fix, never shown to fixloop."""

from timetable.clock import EVENING_PEAK, MORNING_PEAK, is_peak
from timetable.trains import Timetable, Train

STOPS = ["A", "B", "C", "D"]


def check_wrong_name() -> None:
    t = Timetable("Red", 2.0)
    t.add(Train("R1", STOPS, 600, 700))
    t.add(Train("R2", STOPS, 630, 660))  # an express: leaves later, arrives first
    t.add(Train("R3", list(reversed(STOPS)), 640, 720))
    t.add(Train("R4", STOPS, 690, 790))
    for after, want in ((0, "R1"), (600, "R1"), (601, "R2"), (630, "R2"), (631, "R4"), (659, "R4"),
                        (690, "R4"), (691, None)):
        got = t.next_train("A", "D", after)
        assert (got.number if got else None) == want, after
    assert t.next_train("C", "B", 601).number == "R3"


def check_off_by_one() -> None:
    train = Train("R1", STOPS, 600, 700)
    for i, origin in enumerate(STOPS):
        for j in range(i, len(STOPS)):
            assert train.route(origin, STOPS[j]) == STOPS[i:j + 1], (origin, STOPS[j])
    t = Timetable("Red", 2.0)
    assert t.fare(train, "A", "D") == 6.0
    assert t.fare(train, "B", "C") == 2.0


def check_wrong_op() -> None:
    for start, end in (MORNING_PEAK, EVENING_PEAK):
        for minute in (start - 1, start, start + 1, end - 1, end, end + 1):
            assert is_peak(minute) == (start <= minute < end), minute
    for minute in (0, 6 * 60, 12 * 60, 14 * 60, 20 * 60, 23 * 60 + 59):
        assert not is_peak(minute), minute
    t = Timetable("Red", 2.0)
    assert t.fare(Train("R1", STOPS, 8 * 60, 9 * 60), "A", "C") == 6.0
    assert t.fare(Train("R2", STOPS, 17 * 60, 18 * 60), "A", "C") == 6.0
    assert t.fare(Train("R3", STOPS, 13 * 60, 14 * 60), "A", "C") == 4.0


def check_missing_not() -> None:
    running, cancelled = Train("R1", STOPS, 600, 700), Train("R2", STOPS, 600, 700, cancelled=True)
    for i, origin in enumerate(STOPS + ["Z"]):
        for j, dest in enumerate(STOPS + ["Z"]):
            known = "Z" not in (origin, dest)
            assert running.serves(origin, dest) == (known and i < j), (origin, dest)
            assert not cancelled.serves(origin, dest), (origin, dest)
    t = Timetable("Red", 2.0)
    t.add(cancelled)
    t.add(Train("R3", STOPS, 650, 750))
    assert t.next_train("A", "B", 0).number == "R3"

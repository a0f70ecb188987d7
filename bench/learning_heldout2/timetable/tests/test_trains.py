from timetable.clock import parse
from timetable.trains import Timetable, Train

STOPS = ["Harbour", "Market", "University", "Hospital", "Airport"]


def line() -> Timetable:
    t = Timetable("Blue", fare_per_stop=1.2)
    t.add(Train("B12", STOPS, parse("08:30"), parse("09:20")))
    t.add(Train("B10", STOPS, parse("08:00"), parse("08:50")))
    t.add(Train("B14", list(reversed(STOPS)), parse("11:00"), parse("11:50")))
    return t


def test_trains_are_kept_in_departure_order():
    assert [t.number for t in line().trains] == ["B10", "B12", "B14"]


def test_route_includes_both_ends():
    train = line().trains[0]
    assert train.route("Market", "Hospital") == ["Market", "University", "Hospital"]


def test_a_train_only_serves_its_direction():
    b10, _, b14 = line().trains
    assert b10.serves("Harbour", "Airport")
    assert not b10.serves("Airport", "Harbour")
    assert b14.serves("Airport", "Harbour")


def test_next_train_has_not_left_yet():
    assert line().next_train("Harbour", "Airport", parse("08:10")).number == "B12"


def test_next_train_skips_cancelled_trains():
    t = line()
    t.trains[1].cancelled = True
    assert t.next_train("Harbour", "Airport", parse("08:10")) is None


def test_fare_is_dearer_at_rush_hour():
    t = line()
    b10, _, b14 = t.trains
    assert t.fare(b10, "Harbour", "University") == 3.6
    assert t.fare(b14, "Airport", "University") == 2.4


def test_departures_board():
    t = line()
    t.trains[2].cancelled = True
    assert t.board() == ["08:00 B10 Airport 08:50", "08:30 B12 Airport 09:20", "11:00 B14 Harbour cancelled"]

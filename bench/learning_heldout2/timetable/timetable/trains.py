"""A line's timetable: its trains, the stops they call at, and what a ride costs."""

from __future__ import annotations

from dataclasses import dataclass

from timetable.clock import is_peak, show

PEAK_FACTOR = 1.5


@dataclass
class Train:
    number: str
    stops: list[str]
    departs: int  # minute of the day it leaves its first stop
    arrives: int  # minute of the day it reaches its last stop
    cancelled: bool = False

    def route(self, origin: str, dest: str) -> list[str]:
        """The stops from `origin` to `dest`, both included."""
        start, end = self.stops.index(origin), self.stops.index(dest)
        return self.stops[start:end + 1]

    def serves(self, origin: str, dest: str) -> bool:
        """Whether one can ride this train from `origin` to `dest`."""
        if origin not in self.stops or dest not in self.stops:
            return False
        return not self.cancelled and self.stops.index(origin) < self.stops.index(dest)


class Timetable:
    def __init__(self, line: str, fare_per_stop: float) -> None:
        self.line = line
        self.fare_per_stop = fare_per_stop
        self.trains: list[Train] = []

    def add(self, train: Train) -> None:
        self.trains.append(train)
        self.trains.sort(key=lambda t: t.departs)

    def next_train(self, origin: str, dest: str, after: int) -> Train | None:
        """The first train leaving at minute `after` or later that one can ride from `origin` to `dest`."""
        for train in self.trains:
            if train.departs >= after and train.serves(origin, dest):
                return train
        return None

    def fare(self, train: Train, origin: str, dest: str) -> float:
        """So much per stop travelled, more for a train that leaves at rush hour."""
        hops = len(train.route(origin, dest)) - 1
        price = hops * self.fare_per_stop
        return round(price * PEAK_FACTOR if is_peak(train.departs) else price, 2)

    def board(self) -> list[str]:
        """The departures board: time, train, where it goes, and when it gets there."""
        return [f"{show(t.departs)} {t.number} {t.stops[-1]} "
                f"{'cancelled' if t.cancelled else show(t.arrives)}" for t in self.trains]

"""A self-service kiosk: its speaker, its queue, its timetable and its prices."""

from __future__ import annotations


def discount(price: float, rate: float) -> float:
    return round(price * (1 - rate), 2)


class Kiosk:
    def __init__(self, quiet: int, loud: int, capacity: int, base_price: float) -> None:
        self.quiet = quiet
        self.loud = loud
        self.capacity = capacity
        self.base_price = base_price
        self.queue: list[str] = []
        self.volume = quiet
        self.slots = [f"{h:02d}:00" for h in range(24)]

    def set_volume(self, level: int) -> int:
        """The speaker's level, never quieter than `quiet` nor louder than `loud`."""
        self.volume = max(self.quiet, min(level, self.loud))
        return self.volume

    def full(self) -> bool:
        """No one else may join once the queue holds `capacity` people."""
        return len(self.queue) >= self.capacity

    def timetable(self, first: int, last: int) -> list[str]:
        """The slots from hour `first` to hour `last`, both included."""
        return [self.slots[hour] for hour in range(first, last + 1)]

    def member_price(self, rate: float) -> float:
        return discount(self.base_price, rate)

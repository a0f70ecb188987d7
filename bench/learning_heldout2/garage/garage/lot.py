"""A multi-storey car park: its spaces, the cars in it, and what they pay on the way out."""

from __future__ import annotations

from dataclasses import dataclass

from garage.fees import fee


class GarageFull(Exception):
    """No space this car may take (or it is already inside)."""


@dataclass
class Receipt:
    plate: str
    minutes: int
    amount: float


class Garage:
    def __init__(self, levels: int, per_level: int, hourly: float, daily_cap: float, reserved: int = 0) -> None:
        self.levels = levels
        self.per_level = per_level
        self.hourly = hourly
        self.daily_cap = daily_cap
        self.reserved = reserved  # spaces kept for permit holders
        self.permits: set[str] = set()
        self.parked: dict[str, int] = {}  # plate -> minute of the day it came in
        self.takings = 0.0

    @property
    def capacity(self) -> int:
        return self.levels * self.per_level

    def free(self, permit: bool = False) -> int:
        """Open spaces; only permit holders may take the reserved ones."""
        open_spaces = self.capacity - len(self.parked)
        return open_spaces if permit else max(open_spaces - self.reserved, 0)

    def can_enter(self, plate: str) -> bool:
        return plate not in self.parked and self.free(permit=plate in self.permits) > 0

    def enter(self, plate: str, now: int) -> None:
        if not self.can_enter(plate):
            raise GarageFull(plate)
        self.parked[plate] = now

    def leave(self, plate: str, now: int) -> Receipt:
        """Let the car out at minute `now`; permit holders park for free."""
        stay = now - self.parked.pop(plate)
        amount = 0.0 if plate in self.permits else fee(stay, self.hourly, self.daily_cap)
        self.takings += amount
        return Receipt(plate, stay, amount)

    def occupancy(self) -> float:
        """How full the garage is, in percent of all its spaces."""
        return round(100 * len(self.parked) / self.capacity, 1)

    def overstaying(self, now: int, limit: int) -> list[str]:
        """Cars (permit holders aside) in for longer than `limit` minutes at minute `now`, longest first."""
        late = [(came, plate) for plate, came in self.parked.items()
                if plate not in self.permits and now - came > limit]
        return [plate for came, plate in sorted(late)]

    def label(self, index: int) -> str:
        """Space `index` (counted from 0 over the whole garage) as its sign reads: level and space, from 1."""
        level = index // self.per_level + 1
        return f"L{level}-{index % self.per_level + 1:02d}"

"""A thermostat that keeps a room between two set points."""

from __future__ import annotations


def ramp(start: float, target: float, steps: int) -> list[float]:
    """Evenly spaced settings from `start` (excluded) to `target` (included)."""
    return [start + (target - start) * k / steps for k in range(1, steps + 1)]


class Thermostat:
    def __init__(self, low: float, high: float, margin: float = 0.5) -> None:
        self.low = low
        self.high = high
        self.margin = margin

    def setting(self, requested: float) -> float:
        """The requested temperature, kept between the set points."""
        return min(max(requested, self.low), self.high)

    def heating(self, room: float) -> bool:
        """Heat when the room is at the low set point or colder."""
        return room <= self.low

    def schedule(self, room: float, steps: int) -> list[float]:
        """The settings that bring the room to the low set point in `steps` steps."""
        return ramp(room, self.low, steps)

    def blend(self, outside: float, inside: float, share: float) -> float:
        return outside * share + inside * (1 - share)

    def feels_like(self, outside: float, inside: float) -> float:
        """Mostly what the room is: a quarter from outside."""
        return self.blend(outside, inside, 0.25)

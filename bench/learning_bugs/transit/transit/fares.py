"""Fares for a small tram network."""

from __future__ import annotations

from dataclasses import dataclass

BASE_FARE = 2.0
PER_ZONE = 0.5
SENIOR_AGE = 65
SENIOR_SHARE = 0.5


@dataclass
class Card:
    number: str
    expired: bool = False
    discount: float = 0.0


@dataclass
class Rider:
    age: int
    card: Card | None = None


def zone_price(zones: int, per_zone: float) -> float:
    """The base fare covers the first zone; each further zone costs `per_zone`."""
    return BASE_FARE + max(zones - 1, 0) * per_zone


def fare(rider: Rider, zones: int) -> float:
    price = zone_price(zones, PER_ZONE)
    if rider.age >= SENIOR_AGE:
        price *= SENIOR_SHARE
    return round(price, 2)


def card_discount(rider: Rider) -> float:
    card = rider.card
    if card is None or card.expired:
        return 0.0
    return card.discount


def stops_between(first: int, last: int) -> list[int]:
    """Every stop from `first` to `last`, both included."""
    stops = []
    for stop in range(first, last + 1):
        stops.append(stop)
    return stops

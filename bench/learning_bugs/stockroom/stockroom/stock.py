"""Stock levels of a small warehouse."""

from __future__ import annotations

from dataclasses import dataclass

REORDER_AT = 5  # reorder once the shelf is down to this many


@dataclass
class Supplier:
    name: str
    paused: bool = False


@dataclass
class Item:
    sku: str
    on_hand: int
    supplier: Supplier | None = None


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def needs_reorder(item: Item) -> bool:
    return item.on_hand <= REORDER_AT


def can_reorder(item: Item) -> bool:
    supplier = item.supplier
    if supplier is None or supplier.paused:
        return False
    return needs_reorder(item)


def restock(item: Item, delivered: int, capacity: int) -> int:
    """The new level after a delivery; the shelf holds at most `capacity`."""
    item.on_hand = clamp(item.on_hand + delivered, 0, capacity)
    return item.on_hand


def forecast(on_hand: int, per_day: int, days: int) -> list[int]:
    """The level at the end of each of the next `days` days."""
    levels = []
    for day in range(1, days + 1):
        levels.append(max(on_hand - per_day * day, 0))
    return levels

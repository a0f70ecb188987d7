from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    name: str
    unit_price: float
    quantity: int = 0
    reorder_level: int = 5


@dataclass
class Stock:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, sku: str, name: str, unit_price: float, quantity: int = 0, reorder_level: int = 5) -> Item:
        if sku in self.items:
            raise ValueError(f"duplicate sku {sku}")
        item = Item(sku, name, unit_price, quantity, reorder_level)
        self.items[sku] = item
        return item

    def receive(self, sku: str, quantity: int) -> int:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        item = self.items[sku]
        item.quantity += quantity
        return item.quantity

    def ship(self, sku: str, quantity: int) -> int:
        item = self.items[sku]
        if quantity > item.quantity:
            raise ValueError(f"only {item.quantity} of {sku} in stock")
        item.quantity -= quantity
        return item.quantity

    def needs_reorder(self) -> list[Item]:
        return [item for item in self.items.values() if item.quantity <= item.reorder_level]

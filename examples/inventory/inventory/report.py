from __future__ import annotations

from .stock import Stock


def reorder_report(stock: Stock) -> str:
    rows = sorted(stock.needs_reorder(), key=lambda item: (item.quantity, item.sku))
    if not rows:
        return "nothing to reorder"
    width = max(len(item.name) for item in rows)
    lines = [f"{item.sku}  {item.name.ljust(width)}  {item.quantity:>4}" for item in rows]
    return "\n".join(lines)

from __future__ import annotations

BULK_THRESHOLD = 10
BULK_DISCOUNT = 0.1


def line_total(unit_price: float, quantity: int) -> float:
    """Price of one order line; ten or more units get the bulk discount."""
    total = unit_price * quantity
    if quantity > BULK_THRESHOLD:
        total -= total * BULK_DISCOUNT
    return round(total, 2)


def order_total(lines: list[tuple[float, int]], shipping: float = 4.5, free_shipping_from: float = 50.0) -> float:
    subtotal = sum(line_total(price, qty) for price, qty in lines)
    if subtotal >= free_shipping_from:
        return round(subtotal, 2)
    return round(subtotal + shipping, 2)

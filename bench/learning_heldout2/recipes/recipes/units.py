"""Kitchen weights: every conversion goes through grams."""

from __future__ import annotations

GRAMS = {"g": 1.0, "kg": 1000.0, "oz": 28.35, "lb": 453.59}


def convert(quantity: float, unit: str, to: str) -> float:
    """`quantity` in `unit`, expressed in `to` (both weights), to two decimals."""
    if unit not in GRAMS or to not in GRAMS:
        raise ValueError(f"cannot convert {unit} to {to}")
    grams = quantity * GRAMS[unit]
    return round(grams / GRAMS[to], 2)


def pretty(quantity: float, unit: str) -> str:
    """Large amounts of grams read better in kilograms."""
    if unit == "g" and quantity >= 1000:
        return f"{convert(quantity, 'g', 'kg'):g} kg"
    return f"{quantity:g} {unit}"


def parse_amount(text: str) -> tuple[float, str]:
    """'1.5 kg' -> (1.5, 'kg'); a bare number counts pieces."""
    parts = text.split()
    if len(parts) == 1:
        return float(parts[0]), "pcs"
    return float(parts[0]), parts[1]

"""Times of day as minutes after midnight."""

from __future__ import annotations

MORNING_PEAK = (7 * 60, 9 * 60 + 30)  # from 07:00, up to 09:30
EVENING_PEAK = (16 * 60 + 30, 19 * 60)  # from 16:30, up to 19:00


def parse(text: str) -> int:
    """'08:15' -> 495."""
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def show(minute: int) -> str:
    minute %= 24 * 60
    return f"{minute // 60:02d}:{minute % 60:02d}"


def is_peak(minute: int) -> bool:
    """Rush hour: in the morning or the evening peak, each from its start up to (not including) its end."""
    morning_start, morning_end = MORNING_PEAK
    evening_start, evening_end = EVENING_PEAK
    return morning_start <= minute < morning_end or evening_start <= minute < evening_end

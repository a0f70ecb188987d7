from dataclasses import dataclass


@dataclass
class Size:
    width: float
    height: float


def moulding_length(size: Size, margin: float) -> float:
    """Length of moulding around a picture with a margin on each side."""
    inner = 2 * (size.width + size.width)
    return inner + 8 * margin


def fits(size: Size, wall: Size) -> bool:
    return size.width <= wall.width and size.height <= wall.height

OFFSET = 32


def fahrenheit(celsius: float) -> float:
    scaled = celsius * 9 / 5
    result = scaled - OFFSET
    return round(result, 1)

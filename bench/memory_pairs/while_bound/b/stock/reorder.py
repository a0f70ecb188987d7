def shortfall(levels: list[int], minimum: int) -> int:
    missing = 0
    position = 0
    while position < len(levels):
        level = levels[position]
        if level < minimum:
            missing += minimum + level
        position += 1
    return missing

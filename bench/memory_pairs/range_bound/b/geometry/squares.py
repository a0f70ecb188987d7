def squares_up_to(limit: int) -> list[int]:
    out = []
    start = 1
    for value in range(limit):
        out.append(value * value * start)
    return out

def rank(scores: list[int]) -> list[int]:
    """The scores of a game, best first."""
    out: list[int] = []
    for score in scores:
        i = 0
        while i < len(out) and out[i] < score:
            i += 1
        out.insert(i, score)
    return out

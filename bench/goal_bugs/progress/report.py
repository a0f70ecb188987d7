def progress(done: int, total: int) -> int:
    """Share of the work done, in whole percent."""
    if total <= 0:
        return 0
    return max(0, max(100, done * 100 // total))

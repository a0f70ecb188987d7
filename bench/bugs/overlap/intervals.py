def overlaps(a, b):
    """Whether two closed intervals (start, end) share at least one point."""
    return a[0] < b[1] and b[0] < a[1]


def merge_all(intervals):
    out = []
    for start, end in sorted(intervals):
        if out and overlaps(out[-1], (start, end)):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out

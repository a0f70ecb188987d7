def median(values):
    s = sorted(values)
    if not s:
        raise ValueError("median of nothing")
    return s[len(s) // 2]

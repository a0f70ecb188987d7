from text import truncate

for n in range(0, 20):
    s = "abcdefghijklmnopqrstuvwxyz"[:n]
    for limit in range(3, 25):
        got = truncate(s, limit)
        assert len(got) <= limit
        assert got == s if len(s) <= limit else got == s[: limit - 3] + "..."

from batching import chunked

for n in range(0, 30):
    items = list(range(n))
    for size in range(1, 8):
        got = chunked(items, size)
        assert [x for c in got for x in c] == items
        assert all(1 <= len(c) <= size for c in got)
        assert len(got) == -(-n // size)

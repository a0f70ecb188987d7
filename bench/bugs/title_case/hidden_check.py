from strings import capitalize

for w in ["", "a", "ab", "hello", "x1y", "Zed"]:
    assert capitalize(w) == (w[:1].upper() + w[1:]), w

def encode(text):
    """Run-length encoding: 'aaab' -> [('a', 3), ('b', 1)]."""
    runs = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] != text[i]:
            j += 1
        runs.append((text[i], j - i))
        i = j
    return runs


def decode(runs):
    return "".join(char * count for char, count in runs)

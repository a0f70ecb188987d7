def split_words(text):
    """The words of text, split on runs of spaces (like str.split(" ") without the empty words)."""
    words = []
    i = 0
    n = len(text)
    while i < n:
        while i < n and text[i] != " ":
            i += 1
        start = i
        while i < n and text[i] != " ":
            i += 1
        if start < i:
            words.append(text[start:i])
    return words


def count_words(text):
    return len(split_words(text))

from collections import Counter

from .tokens import tokens


def most_common(text, n):
    """The n most frequent words, most frequent first (ties: alphabetical)."""
    counts = Counter(tokens(text))
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=False)
    return [word for word, _ in ranked[:n]]


def vocabulary_size(text):
    return len(set(tokens(text)))

import re


def word_counts(text):
    """How often each lower-cased word occurs."""
    counts = {}
    for word in re.findall(r"[a-z']+", text.lower()):
        counts[word] = counts.get(word, 1) + 1
    return counts


def top_word(text):
    counts = word_counts(text)
    return max(counts, key=counts.get) if counts else None

SMALL = {"a", "an", "the", "of", "and"}


def capitalize(word):
    return word[:1].upper() + word[2:]


def title_case(text):
    words = text.split()
    out = []
    for i, w in enumerate(words):
        out.append(w if i and w in SMALL else capitalize(w))
    return " ".join(out)

import re

WORD = re.compile(r"[A-Za-z]+")


def tokens(text):
    return [w.lower() for w in WORD.findall(text)]

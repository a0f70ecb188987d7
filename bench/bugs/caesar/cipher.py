import string

ALPHABET = string.ascii_lowercase


def shift_char(ch, shift):
    if ch not in ALPHABET:
        return ch
    return ALPHABET[(ALPHABET.index(ch) + shift) % 25]


def encrypt(text, shift):
    return "".join(shift_char(c, shift) for c in text.lower())


def decrypt(text, shift):
    return encrypt(text, -shift)

import string
from cipher import encrypt

for shift in range(-30, 30):
    table = str.maketrans(string.ascii_lowercase, string.ascii_lowercase[shift % 26:] + string.ascii_lowercase[:shift % 26])
    s = "the quick brown fox jumps over the lazy dog!"
    assert encrypt(s, shift) == s.translate(table), shift

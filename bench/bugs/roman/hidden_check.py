from roman import to_roman


def ref(n):
    vals = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    s = ""
    for v, l in vals:
        while n >= v:
            s += l
            n -= v
    return s


for n in range(1, 4000):
    assert to_roman(n) == ref(n), n

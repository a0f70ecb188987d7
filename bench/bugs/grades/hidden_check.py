from grades import letter

for s in range(0, 101):
    exp = "A" if s >= 90 else "B" if s >= 80 else "C" if s >= 70 else "D" if s >= 60 else "F"
    assert letter(s) == exp, s

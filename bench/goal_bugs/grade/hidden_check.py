from school.marks import grade
for s in range(0, 101):
    assert grade(s) == ("A" if s >= 90 else "B" if s >= 75 else "C"), s

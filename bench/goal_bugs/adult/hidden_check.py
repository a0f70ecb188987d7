from people import is_adult
for a in range(0, 100):
    assert is_adult(a) == (a >= 18), a

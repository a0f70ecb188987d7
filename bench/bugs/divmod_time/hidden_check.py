from clock import split_minutes

for m in range(1, 2000):
    assert split_minutes(m) == (m // 60, m % 60)

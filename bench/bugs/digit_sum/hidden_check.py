from digits import digit_sum

for n in range(0, 5000):
    assert digit_sum(n) == sum(int(c) for c in str(n)), n

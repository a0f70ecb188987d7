from backoff import retry_delays, total_wait


def expected(attempts, base, factor, cap):
    out, delay = [], base
    for _ in range(attempts):
        out.append(min(delay, cap))
        delay *= factor
    return out


for attempts in range(0, 15):
    for base in (0.1, 0.5, 1.0, 3.0):
        assert retry_delays(attempts, base=base) == expected(attempts, base, 2, 30.0), (attempts, base)
        assert retry_delays(attempts, base=base, factor=3, cap=100.0) == expected(attempts, base, 3, 100.0)
    assert total_wait(attempts) == sum(expected(attempts, 0.5, 2, 30.0))

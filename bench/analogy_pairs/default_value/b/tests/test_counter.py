from counting.counter import Counter


def test_starts_at_zero():
    assert Counter("c").value == 0


def test_tick():
    c = Counter("c", start=5, step=2)
    assert c.tick() == 7


def test_reset():
    c = Counter("c", start=3)
    c.reset()
    assert c.value == 0

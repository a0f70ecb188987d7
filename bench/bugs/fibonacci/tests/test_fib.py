from fib import fib_sequence, fibonacci


def test_zero():
    assert fibonacci(0) == 0


def test_small_values():
    assert fibonacci(1) == 1
    assert fibonacci(2) == 1
    assert fibonacci(10) == 55


def test_sequence():
    assert fib_sequence(7) == [0, 1, 1, 2, 3, 5, 8]

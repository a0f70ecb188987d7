def fibonacci(n):
    """The n-th Fibonacci number, fibonacci(0) == 0."""
    a, b = 0, 1
    for _ in range(n - 1):
        a, b = b, a + b
    return a


def fib_sequence(count):
    return [fibonacci(i) for i in range(count)]

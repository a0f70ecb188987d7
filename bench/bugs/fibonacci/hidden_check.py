from fib import fibonacci

ref = [0, 1]
while len(ref) < 60:
    ref.append(ref[-1] + ref[-2])
for i, v in enumerate(ref):
    assert fibonacci(i) == v, (i, fibonacci(i), v)

import random
from linked import Node, middle

rng = random.Random(31)
for _ in range(800):
    values = [rng.randint(0, 99) for _ in range(rng.randint(1, 12))]
    head = None
    for v in reversed(values):
        head = Node(v, head)
    assert middle(head) == values[len(values) // 2], values

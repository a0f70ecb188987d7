import random
from collections import deque
from graph import reachable


def reference(graph, start):
    order, queue = [start], deque([start])
    while queue:
        for nxt in graph.get(queue.popleft(), ()):
            if nxt not in order:
                order.append(nxt)
                queue.append(nxt)
    return order


rng = random.Random(29)
for _ in range(600):
    n = rng.randint(1, 7)
    graph = {i: rng.sample(range(n), rng.randint(0, n)) for i in range(n)}
    assert reachable(graph, 0) == reference(graph, 0), graph

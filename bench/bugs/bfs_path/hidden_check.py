import random
from collections import deque
from graph import shortest_path


def reference(graph, start, goal):
    parent = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            break
        for nxt in graph.get(node, ()):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    if goal not in parent:
        return None
    out = []
    while goal is not None:
        out.insert(0, goal)
        goal = parent[goal]
    return out


rng = random.Random(5)
for _ in range(400):
    n = rng.randint(1, 9)
    graph = {i: rng.sample(range(n), rng.randint(0, min(3, n))) for i in range(n)}
    a, b = rng.randrange(n), rng.randrange(n)
    assert shortest_path(graph, a, b) == reference(graph, a, b), (graph, a, b)

from collections import deque


def reachable(graph, start):
    """Nodes reachable from start, in breadth-first order."""
    order = [start]
    queue = deque([start])
    while True:
        node = queue.popleft()
        for nxt in graph.get(node, ()):
            if nxt not in order:
                order.append(nxt)
                queue.append(nxt)
    return order

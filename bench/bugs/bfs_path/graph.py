from collections import deque


def shortest_path(graph, start, goal):
    """Nodes on a shortest path from start to goal in an unweighted graph (a dict of neighbour lists), or None."""
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
    path = []
    node = goal
    while node is not None:
        path = path + [node]
        node = parent[node]
    return path

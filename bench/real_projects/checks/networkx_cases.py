"""Hidden cases for networkx: BFS lengths with cutoffs, density, degree histograms, trees."""

import networkx as nx


def tree_cases():
    graphs = [nx.path_graph(4), nx.cycle_graph(4), nx.Graph([(0, 1), (2, 3)]), nx.star_graph(3),
              nx.Graph([(0, 1), (1, 2), (2, 0), (3, 4)]), nx.empty_graph(1)]
    g = nx.Graph([(0, 1), (2, 3)])
    g.add_edge(1, 2)
    graphs.append(g)
    return [nx.is_tree(g) for g in graphs]


CASES = {
    "bfs_depth": lambda: [list(nx.bfs_edges(nx.path_graph(6), 0, depth_limit=c)) for c in (0, 1, 2, 5, None)],
    "bfs_tree_depth": lambda: sorted(nx.bfs_tree(nx.balanced_tree(2, 3), 0, depth_limit=2).edges()),
    "descendants_at_distance": lambda: sorted(nx.descendants_at_distance(nx.path_graph(5), 1, 2)),
    "sssp_len": lambda: sorted(nx.single_source_shortest_path_length(nx.path_graph(6), 0).items()),
    "sssp_cutoff": lambda: [sorted(nx.single_source_shortest_path_length(nx.path_graph(6), 0, cutoff=c).items())
                            for c in (0, 1, 2, 5)],
    "star_cutoff": lambda: sorted(nx.single_source_shortest_path_length(nx.star_graph(4), 1, cutoff=1).items()),
    "all_pairs_cutoff": lambda: sorted((k, sorted(v.items())) for k, v in
                                       nx.all_pairs_shortest_path_length(nx.cycle_graph(5), cutoff=1)),
    "density": lambda: [nx.density(g) for g in (nx.complete_graph(5), nx.path_graph(4), nx.DiGraph([(0, 1), (1, 2)]),
                                                 nx.empty_graph(3), nx.Graph([(0, 1)]))],
    "degree_histogram": lambda: [nx.degree_histogram(g) for g in
                                 (nx.path_graph(5), nx.star_graph(3), nx.complete_graph(4), nx.empty_graph(2))],
    "is_tree": tree_cases,
}

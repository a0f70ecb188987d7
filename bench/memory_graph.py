"""Memory lookups with the code graph present: 100,000 stored failures, a synthetic workspace of a few
thousand entities, and `recall()` p95 with and without the graph, side by side in one run.

Fills a temporary store like `memory_lookup.py` (40 bug families x many variants, 30% fixed with their
verified fix rows; a fifth of the rows linked to functions of the synthetic project), builds the HNSW
index, then:
  1. `recall()` on the plain learning memory, no graph tables in the store;
  2. builds the graph (walk + tree-sitter + LanceDB tables) and adds coverage edges for every test;
  3. `recall()` on the memory with the graph loaded and on the plain memory, interleaved query by query;
  4. the plain memory's lookups, each query one round trip, against the synchronous query builder, interleaved;
  5. the same against lookups that read the seven recall columns and join the fixes table (what the
     previous release did, and what rows written before the packed `recall` column still cost);
  6. what the editor asks of the graph: entity warnings for a file, a hover, the localization prior.
Prints p50/p95 wall and CPU milliseconds (target: recall p95 < 10 ms).

    PYTHONPATH=server python bench/memory_graph.py [--rows 100000] [--modules 300] [--keep DIR] [--smoke]

`--smoke`: 2,000 rows, 20 modules, 5 queries, one round, to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from memory_lookup import line, percentile, synthetic, timed, with_fixes  # noqa: E402

from fixloop.core.model import Frame, Suspect, TestReport, TestResult  # noqa: E402
from fixloop.adapters.graph.memory import GraphMemory  # noqa: E402
from fixloop.adapters.memory.embed import HashingEmbedder  # noqa: E402
from fixloop.adapters.memory.learning import LearningMemory  # noqa: E402
from fixloop.adapters.memory.store import RECALL_COLUMNS, MemoryStore  # noqa: E402

PROJECT = "/projects/p1"
FUNCTIONS, METHODS = 8, 4


def module_source(rng: random.Random, pkg: int, mod: int, modules: int) -> str:
    """A module of FUNCTIONS functions and a class of METHODS methods, calling into two other modules."""
    others = [rng.randrange(modules) for _ in range(2)]
    lines = [f"from pkg{o // 10}.mod{o % 10} import f{o}_0, f{o}_1" for o in others if o != pkg * 10 + mod]
    me = pkg * 10 + mod
    lines += ["", "LIMIT = 10", ""]
    for i in range(FUNCTIONS):
        callee = f"f{me}_{(i + 1) % FUNCTIONS}" if i % 3 else (f"f{others[0]}_0" if others[0] != me else "len")
        lines += ["", f"def f{me}_{i}(items, limit=LIMIT):", "    total = 0", "    for x in items:",
                  "        if x > limit:", "            total += x", f"    return {callee}([total])", ""]
    lines += ["", f"class Cart{me}:", "    def __init__(self):", "        self.items = []", ""]
    for j in range(METHODS):
        lines += [f"    def m{j}(self, x):", f"        self.items.append(f{me}_{j}([x]))",
                  f"        return self.m{(j + 1) % METHODS}(x) if x else len(self.items)", ""]
    return "\n".join(lines) + "\n"


def write_workspace(root: Path, modules: int, rng: random.Random) -> list[str]:
    """The synthetic project; returns its function entity ids."""
    functions = []
    for m in range(modules):
        pkg, mod = divmod(m, 10)
        folder = root / f"pkg{pkg}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("")
        (folder / f"mod{mod}.py").write_text(module_source(rng, pkg, mod, modules))
        functions += [f"pkg{pkg}.mod{mod}::f{m}_{i}" for i in range(FUNCTIONS)]
    tests = root / "tests"
    tests.mkdir()
    for t in range(modules // 5):
        targets = [rng.randrange(modules) for _ in range(5)]
        body = [f"from pkg{o // 10}.mod{o % 10} import f{o}_0" for o in targets] + [""]
        for k, o in enumerate(targets):
            body += ["", f"def test_{t}_{k}():", f"    assert f{o}_0([1, 2, 30]) == 30", ""]
        (tests / f"test_t{t}.py").write_text("\n".join(body) + "\n")
    return functions


Times = tuple[list[float], list[float]]  # wall and CPU milliseconds


class ColumnsStore(MemoryStore):
    """Lookups as the previous release made them: the recall columns one by one, no fix carried (so
    recall joins the fixes table for every fixed hit)."""

    def similar(self, text: str, k: int = 5, where: str = "", columns: Any = RECALL_COLUMNS) -> Any:
        return super().similar(text, k, where, columns=tuple(columns) + ("test_id",))


def interleaved(a: Any, b: Any, reports: list[TestReport]) -> tuple[Times, Times]:
    """`recall()` of two memories query by query, in alternating order, so a change of load hits both alike."""
    times: tuple[Times, Times] = (([], []), ([], []))
    for i, report in enumerate(reports):
        pair = [(a, times[0]), (b, times[1])]
        for memory, out in pair if i % 2 else pair[::-1]:
            wall, cpu = timed(lambda r: memory.recall(r, {}), [report])
            out[0].extend(wall)
            out[1].extend(cpu)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--modules", type=int, default=300)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved passes over the queries")
    parser.add_argument("--keep", type=Path, help="a store folder to fill once and reuse on later runs")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:  # 20 modules: the editor's lookups read pkg1/mod3.py
        args.rows, args.modules, args.queries, args.rounds = 2000, 20, 5, 1
    rng = random.Random(42)
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-graph-") as tmp:
        ws = Path(tmp) / "ws"
        functions = write_workspace(ws, args.modules, rng)
        kept = args.keep is not None and (args.keep / "failures.lance").is_dir()
        store = MemoryStore(str(args.keep or Path(tmp) / "memory"), HashingEmbedder(), max_rows=10 * args.rows).open()
        if kept:  # a store an earlier run filled and indexed: only the graph is built again
            for name in ("graph_entities", "graph_refs", "graph_meta"):
                store.connection().drop_table(name, ignore_missing=True)
        t = time.perf_counter()
        for start in range(0, 0 if kept else args.rows, 10_000):
            rows = [synthetic(rng) for _ in range(min(10_000, args.rows - start))]
            for row in rows:
                if rng.random() < 0.2:  # a fifth of the failures link to a function of the project
                    row["project"], row["entity"] = PROJECT, rng.choice(functions)
            fixes = with_fixes(rows, rng)
            store.add("failures", rows)
            store.add("fixes", fixes)
        print(f"inserted {store.count('failures'):,} failures and {store.count('fixes'):,} fixes "
              f"in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        store.index_threshold = min(store.index_threshold, args.rows)
        store.compact(build_index=not kept)
        print(f"compaction + IVF_HNSW_SQ index build: {time.perf_counter() - t:.1f} s")

        reports = []
        for _ in range(args.queries):
            exc, _, rest = synthetic(rng)["text"].partition(": ")
            reports.append(TestReport(results=(TestResult("tests/test_q.py::test_q", "failed", 0.0, exc,
                                                          rest.split(" @ ")[0], (Frame("tests/test_q.py", 1, "t"),)),)))
        plain = LearningMemory(MemoryStore(store.uri, HashingEmbedder()).open(), PROJECT)
        plain.recall(reports[0], {})  # the first lookup of a process loads metadata: not a lookup
        without = timed(lambda r: plain.recall(r, {}), reports)

        graphed = GraphMemory(MemoryStore(store.uri, HashingEmbedder()).open(), PROJECT, ws)
        t = time.perf_counter()
        graph = graphed.code_graph()
        assert graph is not None, graphed.notes
        built = time.perf_counter() - t
        spectra = {f"tests/test_t{t}.py::test_{t}_{k}": {f"pkg{m // 10}/mod{m % 10}.py": set(range(1, 60))
                                                          for m in rng.sample(range(args.modules), 3)}
                   for t in range(args.modules // 5) for k in range(5)}
        t = time.perf_counter()
        graphed.graph_store.replace_coverage(PROJECT, graph.add_coverage(spectra))
        covered = time.perf_counter() - t
        entities, edges = graph.size()
        print(f"graph: {entities:,} entities, {edges:,} edges over {len(graph.files)} files; built and stored in "
              f"{built:.1f} s, coverage edges of {len(spectra)} tests in {covered:.1f} s")
        reloaded = GraphMemory(MemoryStore(store.uri, HashingEmbedder()).open(), PROJECT, ws)
        t = time.perf_counter()
        assert reloaded.code_graph() is not None
        print(f"graph loaded from the store (a new process, every file checked against the disk): "
              f"{time.perf_counter() - t:.2f} s")
        reloaded.recall(reports[0], {})
        with_graph, without_again = interleaved(reloaded, plain, reports * args.rounds)

        # The same lookups through the synchronous query builder (what the store used before it ran each
        # query in one round trip), interleaved with the store as it is.
        builder = LearningMemory(MemoryStore(store.uri, HashingEmbedder()).open(), PROJECT)
        builder.store._direct = None
        builder.recall(reports[0], {})
        direct_times, builder_times = interleaved(plain, builder, reports * args.rounds)
        columns = LearningMemory(ColumnsStore(store.uri, HashingEmbedder()).open(), PROJECT)
        columns.recall(reports[0], {})
        packed_times, columns_times = interleaved(plain, columns, reports * args.rounds)

        path = "pkg1/mod3.py"
        text = (ws / path).read_text()
        reloaded.entity_warnings(path, text)  # fills the per-entity history cache
        warnings = timed(lambda _: reloaded.entity_warnings(path, text), range(args.queries))
        hovers = timed(lambda _: reloaded.entity_hover(path, text, 6), range(args.queries))
        suspects = tuple(Suspect(path, n, 1.0 / n) for n in range(1, 40))
        prior = timed(lambda _: reloaded.rerank(suspects, {path: text}), range(args.queries))

        print()
        print(line(f"recall() x{len(reports)}, no graph", *without))
        print(line(f"recall() x{len(with_graph[0])}, graph present", *with_graph))
        print(line(f"recall() x{len(without_again[0])}, no graph, interleaved", *without_again))
        print(line(f"recall() x{len(direct_times[0])}, one round trip", *direct_times))
        print(line(f"recall() x{len(builder_times[0])}, sync builder", *builder_times))
        print(line(f"recall() x{len(packed_times[0])}, packed column", *packed_times))
        print(line(f"recall() x{len(columns_times[0])}, columns + fixes join", *columns_times))
        print(f"p95 ratio columns + join / packed: "
              f"{percentile(columns_times[0], 0.95) / percentile(packed_times[0], 0.95):.2f}x")
        print(line(f"entity warnings for a file x{args.queries}", *warnings))
        print(line(f"hover on a function x{args.queries}", *hovers))
        print(line(f"localization prior, 39 suspects x{args.queries}", *prior))
        p95 = percentile(with_graph[0], 0.95)
        print(f"target recall() p95 < 10 ms with the graph present: wall {'met' if p95 < 10 else 'NOT met'} "
              f"({p95:.2f} ms), CPU {'met' if percentile(with_graph[1], 0.95) < 10 else 'NOT met'}")
        print(f"disk: {store.disk_bytes() / 1e6:.0f} MB; load average during the run: "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (wall times grow with it, CPU times do not)")


if __name__ == "__main__":
    main()

"""Lookup latency of the memory store with 100,000 stored failures: flat scan vs the vector index.

Fills a temporary store with synthetic failures (40 bug families x many variants: different names,
numbers and statements; 30% fixed, each with its verified fix row), then times `similar()` (the vector search recall runs) and the whole
`recall()` of the Memory port, before and after `compact()` builds the IVF_HNSW_SQ index.
Prints p50/p95 wall and CPU milliseconds side by side (target: p95 < 10 ms).

    PYTHONPATH=server python bench/memory_lookup.py [--rows 100000] [--queries 200] [--smoke]

`--smoke`: 2,000 rows (still indexed) and 20 queries, to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from fixloop.core.model import Frame, TestReport, TestResult  # noqa: E402
from fixloop.adapters.memory.embed import HashingEmbedder  # noqa: E402
from fixloop.adapters.memory.learning import LearningMemory  # noqa: E402
from fixloop.adapters.memory.store import MemoryStore, new_id  # noqa: E402

EXCEPTIONS = ["AssertionError", "TypeError", "KeyError", "IndexError", "ValueError", "AttributeError",
              "ZeroDivisionError", "NameError"]
MESSAGES = ["assert <num> == <num>", "<str> object is not subscriptable", "<str>", "list index out of range",
            "invalid literal for int() with base <num>: <str>", "<str> object has no attribute <str>",
            "division by zero", "name <str> is not defined", "assert <id> == <id>", "unsupported operand type(s)"]
SHAPES = ["if ID > ID :", "return ID [ NUM ]", "for ID in range ( ID ) :", "ID = ID - ID", "ID -= ID",
          "return ID and ID", "if not ID :", "ID = ID . ID ( STR )", "return len ( ID ) - NUM", "ID += ID * NUM"]
NAMES = ["total", "price", "count", "items", "user", "age", "limit", "index", "balance", "order", "row", "cache"]


def synthetic(rng: random.Random) -> dict:
    exc, msg, shape = rng.choice(EXCEPTIONS), rng.choice(MESSAGES), rng.choice(SHAPES)
    a, b = rng.sample(NAMES, 2)
    statement = shape.replace("ID", a, 1).replace("ID", b).replace("NUM", str(rng.randint(0, 99))).replace("STR", "'x'")
    signature = f"{exc}: {msg} @ {shape}"
    return {"id": new_id(), "project": f"/projects/p{rng.randint(0, 49)}", "run_id": new_id(), "time": time.time(),
            "test_id": f"tests/test_{a}.py::test_{b}_{rng.randint(0, 999)}", "exc_type": exc, "message": msg,
            "signature": signature, "shape": shape, "statement": statement, "error_class": exc,
            "text": f"{signature} {statement}", "fixed": rng.random() < 0.3}


def with_fixes(rows: list[dict], rng: random.Random) -> list[dict]:
    """The verified fix rows a real run records for the fixed failures of `rows`; each failure carries its
    fix (`fix`), as `LearningMemory` writes them."""
    fixes = []
    for row in rows:
        if not row["fixed"]:
            continue
        before = row["statement"]
        after = before.replace(" > ", " >= ").replace(" - ", " + ") if rng.random() < 0.5 else before + "  # fixed"
        fix = {"id": new_id(), "failure_id": row["id"], "project": row["project"], "run_id": row["run_id"],
               "time": row["time"], "path": "app.py", "summary": f"{before} -> {after}", "proposer": "mutation",
               "operator": rng.choice(["swap_comparison", "arith_swap", "off_by_one", "replace_constant"]),
               "verified": True, "decision": "", "fault_shape": row["shape"], "edit": "[]",
               "diff": "--- a/app.py\n+++ b/app.py\n@@ -10,7 +10,7 @@\n" + "     context line\n" * 6
                       + f"-    {before}\n+    {after}\n"}
        row["fix"] = fix
        fixes.append(fix)
    return fixes


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def timed(action, queries: list) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for q in queries:
        w, c = time.perf_counter(), time.process_time()
        action(q)
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


def line(label: str, wall: list[float], cpu: list[float]) -> str:
    return (f"{label:34} p50 {statistics.median(wall):7.2f} ms  p95 {percentile(wall, 0.95):7.2f} ms  "
            f"(CPU p50 {statistics.median(cpu):6.2f} ms, p95 {percentile(cpu, 0.95):6.2f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.rows, args.queries = 2000, 20
    rng = random.Random(42)
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-lookup-") as tmp:
        t = time.perf_counter()
        store = MemoryStore(str(Path(tmp) / "memory"), HashingEmbedder(), max_rows=10 * args.rows).open()
        print(f"import lancedb + open an empty store: {time.perf_counter() - t:.2f} s")
        t = time.perf_counter()
        for start in range(0, args.rows, 10_000):
            rows = [synthetic(rng) for _ in range(min(10_000, args.rows - start))]
            fixes = with_fixes(rows, rng)
            store.add("failures", rows)
            store.add("fixes", fixes)
        print(f"inserted {store.count('failures'):,} failures in {time.perf_counter() - t:.1f} s")

        queries = [synthetic(rng)["text"] for _ in range(args.queries)]
        memory = LearningMemory(store, "/projects/p1")
        reports = []
        for q in queries[:50]:
            exc, _, rest = q.partition(": ")
            reports.append(TestReport(results=(TestResult("tests/test_q.py::test_q", "failed", 0.0, exc,
                                                          rest.split(" @ ")[0], (Frame("tests/test_q.py", 1, "t"),)),)))
        store.similar(queries[0])  # the first query of a process loads metadata: not a lookup
        flat = timed(lambda q: store.similar(q, k=8), queries)
        flat_recall = timed(lambda r: memory.recall(r, {}), reports)

        t = time.perf_counter()
        store.index_threshold = min(store.index_threshold, args.rows)
        store.compact(build_index=True)
        print(f"compaction + IVF_HNSW_SQ index build: {time.perf_counter() - t:.1f} s")
        reopened = MemoryStore(store.uri, HashingEmbedder()).open()  # a fresh process's view
        reopened.similar(queries[0])
        memory = LearningMemory(reopened, "/projects/p1")
        indexed = timed(lambda q: reopened.similar(q, k=8), queries)
        indexed_recall = timed(lambda r: memory.recall(r, {}), reports)

        flat_top = [r["id"] for r, _ in store.similar(queries[1], k=8)]
        print()
        print(line(f"flat scan, similar() x{len(queries)}", *flat))
        print(line(f"flat scan, recall() x{len(reports)}", *flat_recall))
        print(line(f"HNSW index, similar() x{len(queries)}", *indexed))
        print(line(f"HNSW index, recall() x{len(reports)}", *indexed_recall))
        index_top = [r["id"] for r, _ in reopened.similar(queries[1], k=8)]
        print(f"p95 ratio flat/indexed: {percentile(flat[0], 0.95) / percentile(indexed[0], 0.95):.1f}x; "
              f"top-8 overlap with the exact answer on a sample query: {len(set(flat_top) & set(index_top))}/8")
        print(f"target p95 < 10 ms with the index: wall {'met' if percentile(indexed[0], 0.95) < 10 else 'NOT met'}, "
              f"CPU {'met' if percentile(indexed[1], 0.95) < 10 else 'NOT met'}")
        print(f"disk: {reopened.disk_bytes() / 1e6:.0f} MB; load average during the run: "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (wall times grow with it, CPU times do not)")


if __name__ == "__main__":
    main()

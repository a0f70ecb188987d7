"""The shared memory against a local S3-compatible server (moto on 127.0.0.1): sync throughput and
`recall()` latency, private store vs shared store's cache, with 10,000 and 100,000 rows.

For each size: machine A writes N failures through its cache and pushes them (push throughput);
machine B, with an empty cache, opens the shared memory and pulls them (pull throughput; vectors
are recomputed on B); B's cache is compacted and indexed as `fixloop memory compact` would. Then
`recall()` is timed on a private store holding the same rows and on B's cache: cold (the first
lookup on a new connection, as a new process makes it; the OS file cache is warm) and warm.

    PYTHONPATH=server python bench/memory_shared.py [--sizes 10000 100000] [--queries 200] [--smoke]

`--smoke`: 2,000 rows and 10 queries, to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from memory_lookup import percentile, synthetic  # noqa: E402

from fixloop.core.model import Frame, TestReport, TestResult  # noqa: E402
from fixloop.adapters.memory.embed import HashingEmbedder  # noqa: E402
from fixloop.adapters.memory.learning import LearningMemory  # noqa: E402
from fixloop.adapters.memory.shared import SharedStore  # noqa: E402
from fixloop.adapters.memory.store import MemoryStore  # noqa: E402
from tests.memory.s3server import S3Server  # noqa: E402


def reports(rng: random.Random, n: int) -> list[TestReport]:
    out = []
    for _ in range(n):
        text = synthetic(rng)["text"]
        exc, _, rest = text.partition(": ")
        out.append(TestReport(results=(TestResult("tests/test_q.py::test_q", "failed", 0.0, exc,
                                                  rest.split(" @ ")[0], (Frame("tests/test_q.py", 1, "t"),)),)))
    return out


def recall_times(open_store, queries: list[TestReport], cold_rounds: int) -> tuple[list[float], ...]:
    """Wall and CPU milliseconds of recall(): cold (the first lookup on a new connection), then warm."""
    cold, cold_cpu = [], []
    for q in queries[:cold_rounds]:
        memory = LearningMemory(open_store(), "p1")
        t, c = time.perf_counter(), time.process_time()
        memory.recall(q, {})
        cold.append((time.perf_counter() - t) * 1000)
        cold_cpu.append((time.process_time() - c) * 1000)
    memory = LearningMemory(open_store(), "p1")
    memory.recall(queries[0], {})
    warm, warm_cpu = [], []
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        memory.recall(q, {})
        warm.append((time.perf_counter() - t) * 1000)
        warm_cpu.append((time.process_time() - c) * 1000)
    return cold, cold_cpu, warm, warm_cpu


def p95(times: tuple[list[float], ...]) -> str:
    cold, cold_cpu, warm, warm_cpu = (percentile(t, 0.95) for t in times)
    return f"cold {cold:6.1f} ms (CPU {cold_cpu:5.1f}), warm {warm:6.1f} ms (CPU {warm_cpu:5.1f})"


def one_size(server: S3Server, n: int, queries: int, tmp: Path) -> list[str]:
    rng = random.Random(n)
    uri = f"s3://{server.bucket(f'bench-{n}')}/team"
    rows = [dict(synthetic(rng), fixed=True) for _ in range(n)]  # fixed: every share mode shares them
    a = SharedStore(uri, HashingEmbedder(), folder=tmp / f"a{n}", max_rows=10 * n).open()
    for start in range(0, n, 10_000):
        a.add("failures", rows[start:start + 10_000])
    t = time.perf_counter()
    pushed = a.sync(pull=False)
    push_s = time.perf_counter() - t
    assert pushed.get("pushed") == n, pushed

    b = SharedStore(uri, HashingEmbedder(), folder=tmp / f"b{n}", max_rows=10 * n)
    t = time.perf_counter()
    b.open()  # opening syncs: B pulls every row
    pull_s = time.perf_counter() - t
    assert b.count("failures") == n, b.sync()
    t = time.perf_counter()
    b.index_threshold = min(b.index_threshold, n)
    b.compact(build_index=n >= 50_000)
    compact_s = time.perf_counter() - t

    private = MemoryStore(str(tmp / f"private{n}"), HashingEmbedder(), max_rows=10 * n).open()
    for start in range(0, n, 10_000):
        private.add("failures", rows[start:start + 10_000])
    private.index_threshold = b.index_threshold
    private.compact(build_index=n >= 50_000)

    qs = reports(rng, queries)
    cold_rounds = min(20, queries)
    private_t = recall_times(lambda: MemoryStore(private.uri, HashingEmbedder(), max_rows=10 * n).open(), qs,
                             cold_rounds)
    shared_t = recall_times(lambda: SharedStore(uri, HashingEmbedder(), folder=tmp / f"b{n}",
                                                max_rows=10 * n).open(), qs, cold_rounds)
    index = "HNSW index" if n >= 50_000 else "flat scan"
    return [
        f"{n:>7,} rows  push {n / push_s:8,.0f} rows/s ({push_s:5.1f} s)   pull {n / pull_s:8,.0f} rows/s "
        f"({pull_s:5.1f} s, re-embedding included)   compact{' + index' if n >= 50_000 else ''} {compact_s:5.1f} s",
        f"{'':9}recall() p95, {index}, {cold_rounds} cold / {len(qs)} warm lookups:",
        f"{'':11}private store: {p95(private_t)}",
        f"{'':11}shared cache:  {p95(shared_t)}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.sizes, args.queries = [2000], 10
    server = S3Server()
    os.environ.update(server.env())
    lines: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="fixloop-bench-shared-") as tmp:
            for n in args.sizes:
                lines += one_size(server, n, args.queries, Path(tmp))
                print(*lines[-4:], sep="\n", flush=True)
    finally:
        server.close()
    print(f"\nload average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
          "(moto is a Python server on the same 2 cores: sync figures are a floor, not S3's)")


if __name__ == "__main__":
    main()

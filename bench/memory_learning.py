"""Does memory make the next similar bug cheaper? Side by side, in one run, on the real loop.

For each pair under bench/memory_pairs/<class>/{a,b}: fix `a` with a fresh memory, then fix `b`
twice: with an empty memory, and with the memory `a` left behind. A third column fixes `b` with
one memory that holds every pair's `a` (replay must pick the right lesson among several).
Prints candidate evaluations per run and the ratios (target: >= 2x fewer with memory).

    PYTHONPATH=server python bench/memory_learning.py [--pairs threshold,and_or] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from fixloop.config import MemorySettings, Settings  # noqa: E402
from fixloop.core.model import Outcome  # noqa: E402
from fixloop.memory.embed import HashingEmbedder  # noqa: E402
from fixloop.memory.store import MemoryStore  # noqa: E402
from fixloop.session import FixSession  # noqa: E402

PAIRS = ROOT / "bench" / "memory_pairs"
TABLES = ("failures", "fixes", "decisions", "operator_stats")


@dataclasses.dataclass
class Run:
    status: str
    candidates: int
    test_runs: int
    seconds: float
    fixed_by: str
    llm_calls: int


def fix(project: Path, memory_uri: Path, scratch: Path) -> Run:
    work = scratch / f"{project.parent.name}-{project.name}-{time.monotonic_ns()}"
    shutil.copytree(project, work)
    settings = dataclasses.replace(Settings(), offline=True, memory=MemorySettings(uri=str(memory_uri)))
    started = time.monotonic()
    outcome: Outcome = FixSession(work, settings).run()
    return Run(outcome.status.value, outcome.candidates_evaluated, outcome.test_runs,
               round(time.monotonic() - started, 2),
               f"{outcome.patch.proposer}/{outcome.patch.operator}" if outcome.patch else "-", outcome.usage.llm_calls)


def merge_stores(sources: list[Path], target: Path) -> None:
    merged = MemoryStore(str(target), HashingEmbedder()).open()
    for source in sources:
        store = MemoryStore(str(source), HashingEmbedder()).open()
        for name in TABLES:
            rows = store.rows(name, limit=max(store.count(name), 1))
            for row in rows:
                row.pop("embedder", None)
            merged.upsert(name, rows)


def ratio(without: list[int], with_: list[int]) -> float:
    return sum(without) / max(sum(with_), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="", help="comma-separated classes (default: all)")
    parser.add_argument("--json", action="store_true", help="print the table as JSON too")
    args = parser.parse_args()
    classes = sorted(p.name for p in PAIRS.iterdir() if (p / "a").is_dir() and (p / "b").is_dir())
    if args.pairs:
        classes = [c for c in classes if c in args.pairs.split(",")]

    results: dict[str, dict[str, Run]] = {}
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-memory-") as tmp:
        scratch = Path(tmp)
        for cls in classes:
            learned = scratch / f"memory-{cls}"
            results[cls] = {"first": fix(PAIRS / cls / "a", learned, scratch)}
            results[cls]["empty"] = fix(PAIRS / cls / "b", scratch / f"empty-{cls}", scratch)
            results[cls]["memory"] = fix(PAIRS / cls / "b", learned, scratch)
            print(f"{cls}: done", file=sys.stderr, flush=True)
        shared = scratch / "memory-shared"
        merge_stores([scratch / f"memory-{c}" for c in classes], shared)
        for cls in classes:  # each `b` on its own copy of the shared memory: pairs do not teach each other
            copy = scratch / f"shared-{cls}"
            shutil.copytree(shared, copy)
            results[cls]["shared"] = fix(PAIRS / cls / "b", copy, scratch)

    header = f"{'class':16} {'a: cands':>9} | {'b empty':>8} {'b memory':>9} {'b shared':>9} | {'fixed by (memory)':28} status"
    print(header)
    print("-" * len(header))
    for cls, r in results.items():
        print(f"{cls:16} {r['first'].candidates:>9} | {r['empty'].candidates:>8} {r['memory'].candidates:>9} "
              f"{r['shared'].candidates:>9} | {r['memory'].fixed_by:28} "
              f"{r['empty'].status}/{r['memory'].status}/{r['shared'].status}")
    empty = [r["empty"].candidates for r in results.values()]
    memory = [r["memory"].candidates for r in results.values()]
    shared = [r["shared"].candidates for r in results.values()]
    runs_empty = [r["empty"].test_runs for r in results.values()]
    runs_memory = [r["memory"].test_runs for r in results.values()]
    per_pair = [e / max(m, 1) for e, m in zip(empty, memory)]
    all_fixed = all(r[k].status == "fixed" for r in results.values() for k in ("empty", "memory", "shared"))
    print()
    print(f"candidate evaluations, second bug: {sum(empty)} with an empty memory, {sum(memory)} with the first "
          f"bug's memory, {sum(shared)} with one memory holding every first bug")
    print(f"ratio empty/memory: {ratio(empty, memory):.2f}x (target >= 2x); per pair: median "
          f"{statistics.median(per_pair):.2f}x, min {min(per_pair):.2f}x")
    print(f"ratio empty/shared memory: {ratio(empty, shared):.2f}x")
    print(f"test runs, second bug: {sum(runs_empty)} empty vs {sum(runs_memory)} with memory "
          f"({ratio(runs_empty, runs_memory):.2f}x)")
    print(f"wall seconds, second bug: {sum(r['empty'].seconds for r in results.values()):.1f} empty vs "
          f"{sum(r['memory'].seconds for r in results.values()):.1f} with memory")
    print(f"every second bug fixed in all three modes: {all_fixed}")
    print("LLM calls with and without memory: bench/memory_llm.py (scripted model)")
    if args.json:
        print(json.dumps({c: {k: dataclasses.asdict(v) for k, v in r.items()} for c, r in results.items()}))


if __name__ == "__main__":
    main()

"""Does the memory make the next similar bug cheaper, and never dearer? Repeated with different seeds.

For each pair under bench/memory_pairs/<class>/{a,b}: fix `a` on a fresh memory (the store it leaves
is kept), fix `b` on an empty memory ("cold"), then fix `b` once per seed on its own copy of what `a`
left ("warm"). Everything is the real product: the offline engine, the LanceDB store in a temp dir,
warm pytest workers and the sandbox the CLI would choose. The cold run and the `a` run see an empty
memory, so their candidate order does not depend on the seed: each runs once per pair (`--cold-reps`
repeats the cold run to check that).

Prints per pair and overall: candidates cold, warm min / median / max, the worst warm/cold ratio.
Goal: warm never above cold + 10% in any repetition; overall median at least 5x fewer.

    PYTHONPATH=server python bench/memory_learning.py [--reps 10] [--jobs 2] [--pairs threshold,decoy] [--json]
        [--smoke]

`--smoke`: one pair (threshold), one warm run, on an interpreter with pytest only, to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import functools
import multiprocessing
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from fixloop.application.config import MemorySettings, Settings  # noqa: E402
from fixloop.core.model import Outcome  # noqa: E402
from fixloop.application.session import FixSession  # noqa: E402
from fixloop.application.run import RunRequest  # noqa: E402

PAIRS = ROOT / "bench" / "memory_pairs"


@dataclasses.dataclass
class Run:
    status: str
    candidates: int
    seconds: float
    fixed_by: str
    order: list[str]  # proposer/operator of each evaluated candidate, in order
    seed: int


def fix(project: Path, memory_uri: Path, scratch: Path, seed: int, python: str) -> Run:
    work = scratch / f"{project.parent.name}-{project.name}-{time.monotonic_ns()}"
    shutil.copytree(project, work)
    settings = dataclasses.replace(Settings(), offline=True, memory=MemorySettings(uri=str(memory_uri)), python=python)
    started = time.monotonic()
    outcome: Outcome = FixSession(RunRequest(work, settings, seed=seed)).run()
    order = [f"{a.patch.proposer}/{a.patch.operator}" for a in outcome.attempts]
    return Run(outcome.status.value, outcome.candidates_evaluated, round(time.monotonic() - started, 2),
               f"{outcome.patch.proposer}/{outcome.patch.operator}" if outcome.patch else "-", order, seed)


def run_pair(cls: str, reps: int, cold_reps: int, scratch: Path, python: str = "") -> dict[str, list[Run]]:
    """`a` once, `b` cold, then `b` warm once per seed; in its own process when --jobs > 1. `python`: the
    projects' interpreter ('': the one fixloop finds, as for a user)."""
    started = time.monotonic()
    learned = scratch / f"memory-{cls}"
    first = fix(PAIRS / cls / "a", learned, scratch, 0, python)
    cold = [fix(PAIRS / cls / "b", scratch / f"empty-{cls}-{i}", scratch, 1000 + i, python) for i in range(cold_reps)]
    warm = []
    for seed in range(reps):
        copy = scratch / f"warm-{cls}-{seed}"  # each repetition learns only from `a`
        shutil.copytree(learned, copy)
        warm.append(fix(PAIRS / cls / "b", copy, scratch, seed, python))
    print(f"{cls}: a {first.candidates}, cold {[r.candidates for r in cold]}, "
          f"warm {[r.candidates for r in warm]} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    return {"first": [first], "cold": cold, "warm": warm}


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    sys.path.insert(0, str(ROOT))
    from tests.project_python import project_python
    return project_python()


def pair_classes(pairs: Path, wanted: str) -> list[str]:
    """The pair folders (each with its `a` and `b` project), those named in `wanted` (comma-separated) if any."""
    classes = sorted(p.name for p in pairs.iterdir() if (p / "a").is_dir() and (p / "b").is_dir())
    return [c for c in classes if not wanted or c in wanted.split(",")]


def run_pairs(classes: list[str], run: Callable[..., dict[str, list[Run]]], jobs: int, smoke: bool,
              prefix: str) -> tuple[dict[str, dict[str, list[Run]]], float]:
    """(each class's runs, seconds): in turn, or side by side, one process a class; `run(cls=, scratch=,
    python=)` is a module-level function or a partial of one (it crosses to the processes)."""
    results: dict[str, dict[str, list[Run]]] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        scratch = Path(tmp)
        if jobs <= 1:
            python = lean_python() if smoke else ""
            for cls in classes:
                results[cls] = run(cls=cls, scratch=scratch, python=python)
        else:
            context = multiprocessing.get_context("spawn")  # no lock or thread of this process is inherited
            with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
                futures = {cls: pool.submit(run, cls=cls, scratch=scratch) for cls in classes}
                results = {cls: f.result() for cls, f in futures.items()}
    return results, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="", help="comma-separated classes (default: all)")
    parser.add_argument("--reps", type=int, default=10, help="warm runs per pair, one seed each")
    parser.add_argument("--cold-reps", type=int, default=1, help="cold runs per pair (the order is seed-free)")
    parser.add_argument("--jobs", type=int, default=1, help="pairs run side by side, one process each")
    parser.add_argument("--json", action="store_true", help="print every run as JSON too")
    parser.add_argument("--smoke", action="store_true", help="one pair, one warm run: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.reps, args.cold_reps, args.jobs = "threshold", 1, 1, 1
    classes = pair_classes(PAIRS, args.pairs)
    run = functools.partial(run_pair, reps=args.reps, cold_reps=args.cold_reps)
    results, elapsed = run_pairs(classes, run, args.jobs, args.smoke, "fixloop-bench-memory-")

    header = (f"{'class':15} {'a':>3} | {'cold':>4} | {'warm min':>8} {'median':>6} {'max':>4} | "
              f"{'worst w/c':>9} {'fixed':>6} | warm fixed by")
    print(header)
    print("-" * len(header))
    ratios: list[float] = []
    over: list[str] = []
    cold_all: list[int] = []
    warm_all: list[int] = []
    for cls, r in results.items():
        cold = max(x.candidates for x in r["cold"])
        counts = [x.candidates for x in r["warm"]]
        worst = max(counts) / max(cold, 1)
        fixed = sum(x.status == "fixed" for x in r["warm"])
        by = sorted({x.fixed_by for x in r["warm"]})
        print(f"{cls:15} {r['first'][0].candidates:>3} | {cold:>4} | {min(counts):>8} "
              f"{statistics.median(counts):>6g} {max(counts):>4} | {worst:>9.2f} {fixed:>3}/{len(counts):<2} | "
              f"{', '.join(by)}")
        for x in r["warm"]:
            ratios.append(cold / max(x.candidates, 1))
            cold_all.append(cold)
            warm_all.append(x.candidates)
            if x.candidates > cold * 1.1:
                over.append(f"{cls} seed {x.seed}: {x.candidates} > {cold}")
        if len({x.candidates for x in r["cold"]}) > 1:
            over.append(f"{cls}: cold runs differ {[x.candidates for x in r['cold']]}")
    totals = [sum(r["warm"][i].candidates for r in results.values()) for i in range(args.reps)]
    cold_total = sum(max(x.candidates for x in r["cold"]) for r in results.values())
    print()
    print(f"overall (all pairs, per repetition): cold {cold_total}, warm min {min(totals)} / median "
          f"{statistics.median(totals):g} / max {max(totals)}: {cold_total / max(statistics.median(totals), 1):.2f}x "
          f"fewer at the median (goal >= 5x); per run, median cold/warm {statistics.median(ratios):.2f}x")
    worst_all = max(w / max(c, 1) for c, w in zip(cold_all, warm_all))
    print(f"worst warm/cold over {len(warm_all)} warm runs: {worst_all:.2f} (goal <= 1.10); "
          f"repetitions above cold + 10%: {len(over)}" + (f" ({'; '.join(over)})" if over else ""))
    print(f"wall time: {elapsed:.0f} s for {len(results) * (1 + args.cold_reps + args.reps)} runs")
    if args.json:
        print(json.dumps({c: {k: [dataclasses.asdict(x) for x in v] for k, v in r.items()} for c, r in results.items()}))
    errored = [f"{c} {k}" for c, r in results.items() for k, v in r.items() for x in v if x.status == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + ", ".join(errored))


if __name__ == "__main__":
    main()

"""Does ONE past fix make a differently written bug of the same class cheaper (the one-shot analogy)?

For each pair under bench/analogy_pairs/<class>/{a,b} (held-out pairs, written before the proposer):
fix `a` on an empty memory with the real product (the store it leaves is kept), then fix `b` once per
seed twice, side by side: on an empty memory ("cold") and on a copy of what `a` left ("warm"). The
offline engine, a real LanceDB store in a temp dir, the sandbox the CLI would choose: the same code
path as `fixloop fix --offline`.

Prints per pair: candidates for `b` cold and warm (min / median / max over the seeds), the ratio of the
medians, who fixed it warm; then overall: the sum over pairs of the median candidates cold and warm, and
the ratio. Goal: at least 5x fewer overall, and warm never above cold on any pair and seed.

    PYTHONPATH=server python bench/analogy_pairs.py [--reps 10] [--jobs 2] [--pairs clamp_roles,decoy] [--json]
        [--smoke]

`--smoke`: one pair (negation, a cheap one), one seed, on an interpreter with pytest only, to prove the bench runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from memory_learning import Run, fix, pair_classes, run_pairs  # noqa: E402

PAIRS = ROOT / "bench" / "analogy_pairs"


def run_pair(cls: str, reps: int, scratch: Path, python: str = "") -> dict[str, list[Run]]:
    """`a` once on an empty memory, then `b` per seed: cold (empty memory) and warm (a copy of what `a` left)."""
    started = time.monotonic()
    learned = scratch / f"memory-{cls}"
    first = fix(PAIRS / cls / "a", learned, scratch, 0, python)
    cold, warm = [], []
    for seed in range(reps):
        cold.append(fix(PAIRS / cls / "b", scratch / f"empty-{cls}-{seed}", scratch, seed, python))
        copy = scratch / f"warm-{cls}-{seed}"  # each repetition learns only from `a`
        shutil.copytree(learned, copy)
        warm.append(fix(PAIRS / cls / "b", copy, scratch, seed, python))
    print(f"{cls}: a {first.candidates} ({first.status}), cold {[r.candidates for r in cold]}, "
          f"warm {[r.candidates for r in warm]} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    return {"first": [first], "cold": cold, "warm": warm}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="", help="comma-separated classes (default: all)")
    parser.add_argument("--reps", type=int, default=10, help="seeds per pair; each runs cold and warm")
    parser.add_argument("--jobs", type=int, default=1, help="pairs run side by side, one process each")
    parser.add_argument("--json", action="store_true", help="print every run as JSON too")
    parser.add_argument("--smoke", action="store_true", help="one pair, one seed: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.reps, args.jobs = "negation", 1, 1
    classes = pair_classes(PAIRS, args.pairs)
    run = functools.partial(run_pair, reps=args.reps)
    results, elapsed = run_pairs(classes, run, args.jobs, args.smoke, "fixloop-bench-analogy-")

    header = (f"{'class':17} {'a':>3} | {'cold min':>8} {'median':>6} {'max':>4} | {'warm min':>8} {'median':>6} "
              f"{'max':>4} | {'cold/warm':>9} {'fixed':>5} | warm fixed by")
    print(header)
    print("-" * len(header))
    cold_total = warm_total = 0.0
    worse: list[str] = []
    for cls, r in results.items():
        cold = [x.candidates for x in r["cold"]]
        warm = [x.candidates for x in r["warm"]]
        cm, wm = statistics.median(cold), statistics.median(warm)
        cold_total += cm
        warm_total += wm
        fixed = sum(x.status == "fixed" for x in r["warm"])
        by = sorted({x.fixed_by for x in r["warm"]})
        print(f"{cls:17} {r['first'][0].candidates:>3} | {min(cold):>8} {cm:>6g} {max(cold):>4} | {min(warm):>8} "
              f"{wm:>6g} {max(warm):>4} | {cm / max(wm, 1):>8.2f}x {fixed:>2}/{len(warm):<2} | {', '.join(by)}")
        for c, w in zip(r["cold"], r["warm"]):
            if w.candidates > c.candidates:
                worse.append(f"{cls} seed {w.seed}: warm {w.candidates} > cold {c.candidates}")
    print()
    print(f"overall (sum over {len(results)} pairs of the median over {args.reps} seeds): cold {cold_total:g}, "
          f"warm {warm_total:g}: {cold_total / max(warm_total, 1):.2f}x fewer candidates with the memory (goal >= 5x)")
    print(f"seeds where warm cost more than cold: {len(worse)}" + (f" ({'; '.join(worse)})" if worse else ""))
    print(f"wall time: {elapsed:.0f} s for {len(results) * (1 + 2 * args.reps)} runs")
    if args.json:
        print(json.dumps({c: {k: [dataclasses.asdict(x) for x in v] for k, v in r.items()} for c, r in results.items()}))
    errored = [f"{c} {k}" for c, r in results.items() for k, v in r.items() for x in v if x.status == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + ", ".join(errored))


if __name__ == "__main__":
    main()

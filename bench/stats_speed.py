"""How fast `fixloop stats` answers over a long history: 1,000 vs 10,000 synthetic runs, cold (first read,
no cache) vs warm (the caches in the data dir: a history whose files kept their sizes and mtimes has its
KPIs stored, so the command only lists and stats the run folders), the whole command as a user runs it (a
fresh `fixloop stats --json` process, start-up included), the in-process load + KPIs from the record cache
(what a changed history costs), and the listing + stat alone.

The runs are written in the run log's format (tests/history/synth.py): varied statuses, candidates, model
calls, safety refusals and decisions. Prints medians of 5 (cold: 1, since the first read fills the cache).
Run: python bench/stats_speed.py [--runs 10000] [--smoke]   (`--smoke`: 20 vs 200 runs, one timing each: proves it
still runs)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))

from tests.history.synth import bulk  # noqa: E402


def command(project: Path, data: Path) -> tuple[float, dict]:
    env = {**os.environ, "XDG_DATA_HOME": str(data), "FIXLOOP_CONFIG": str(data / "none.toml")}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "fixloop", "stats", str(project), "--json"], env=env,
                         capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(out.stdout)


def in_process(project: Path, data: Path) -> float:
    """Load (records cached after the first time) and compute the KPIs, in this process."""
    os.environ["XDG_DATA_HOME"] = str(data)
    from fixloop.application.history import kpis
    from fixloop.application.history.store import load

    t0 = time.perf_counter()
    kpis.compute(load([project]).records)
    return time.perf_counter() - t0


def fingerprint(project: Path) -> float:
    """What a warm `fixloop stats` does besides starting: list the runs and stat their files."""
    from fixloop.application.history.store import fingerprint as digest

    t0 = time.perf_counter()
    digest([project], None)
    return time.perf_counter() - t0


def measure(project: Path, data: Path, repeat: int) -> dict[str, float]:
    shutil.rmtree(data / "fixloop" / "history", ignore_errors=True)
    cold, k = command(project, data)
    warm = statistics.median(command(project, data)[0] for _ in range(repeat))
    shutil.rmtree(data / "fixloop" / "history", ignore_errors=True)
    cold_in = in_process(project, data)
    warm_in = statistics.median(in_process(project, data) for _ in range(repeat))
    stat_only = statistics.median(fingerprint(project) for _ in range(repeat))
    start_up = statistics.median(
        _time([sys.executable, "-m", "fixloop", "version"]) for _ in range(repeat))
    return {"runs": k["runs"], "cold": cold, "warm": warm, "cold_in": cold_in, "warm_in": warm_in,
            "start_up": start_up, "stat_only": stat_only}


def _time(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--smoke", action="store_true", help="200 runs, one timing each: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.runs = 200
    repeat = 1 if args.smoke else 5
    base = Path(tempfile.mkdtemp(prefix="fixloop-stats-bench-"))
    try:
        small, large, data = base / "small", base / "large", base / "data"
        t0 = time.perf_counter()
        bulk(small, args.runs // 10)
        bulk(large, args.runs)
        print(f"wrote {args.runs // 10 + args.runs} run folders in {time.perf_counter() - t0:.1f} s "
              f"(load average {os.getloadavg()[0]:.1f})")
        rows = [measure(small, data, repeat), measure(large, data, repeat)]
        print(f"{'runs':>7} | {'cold cmd':>9} | {'warm cmd':>9} | {'cold load+KPIs':>15} | {'warm load+KPIs':>15} | "
              f"{'stat only':>10}")
        for r in rows:
            print(f"{r['runs']:>7} | {r['cold']:>8.2f}s | {r['warm']:>8.2f}s | {r['cold_in']:>14.3f}s | "
                  f"{r['warm_in']:>14.3f}s | {r['stat_only']:>9.3f}s")
        print(f"process start-up alone (`fixloop version`): {rows[-1]['start_up']:.2f} s; "
              f"warm 10x runs / 1x runs: {rows[1]['warm'] / rows[0]['warm']:.2f}x (command), "
              f"{rows[1]['warm_in'] / rows[0]['warm_in']:.1f}x (in process); "
              f"cold / warm at {rows[1]['runs']}: {rows[1]['cold'] / rows[1]['warm']:.1f}x")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

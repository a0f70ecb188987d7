"""Run the offline repair engine (no model, no memory) on every project under bench/bugs/.

Each bug is copied without its hidden_check.py and bench.toml, fixed by a real `FixSession`, and the
fix (if any) is applied to a second copy where the hidden check then runs. Prints fixed correctly /
plausible but wrong / not fixed, the median and p90 time to a fix, and candidates per fix, per class
of bug (`class = "..."` in the case's bench.toml; `one-token` without one) and in total.

    PYTHONPATH=server python bench/repair_corpus.py [--only NAME ...] [--jobs 2] [--smoke]

`--smoke` runs one bug (SMOKE_BUG), on an interpreter with pytest only unless `--python` says otherwise, to prove
the bench still runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from fixloop.application.config import load
from fixloop.core.model import Status
from fixloop.application.session import FixSession
from fixloop.application.run import RunRequest

BUGS = Path(__file__).resolve().parent / "bugs"
HIDDEN = "hidden_check.py"
META = "bench.toml"  # the case's class: for the report, never shown to the engine
SMOKE_BUG = "clamp"
CLASSES = ("one-token", "operand-order", "aug-assign", "two-edits", "missing-statement", "wrong-expression",
           "call-arguments", "condition", "hanging")


@dataclass
class Result:
    name: str
    verdict: str  # correct | wrong | not_fixed
    seconds: float
    candidates: int
    plausible: int
    detail: str = ""
    kind: str = "one-token"
    status: str = ""  # the session's end (`error`: the run itself failed, not the repair)


def bug_class(bug: Path) -> str:
    try:
        return str(tomllib.loads((bug / META).read_text()).get("class", "one-token"))
    except FileNotFoundError:
        return "one-token"


def run_one(bug: Path, python: str, max_candidates: int, wall: float) -> Result:
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-") as tmp:
        work = Path(tmp) / bug.name
        shutil.copytree(bug, work, ignore=shutil.ignore_patterns(HIDDEN, META, "__pycache__", ".fixloop"))
        settings, problems = load({"python": python, "offline": True, "max_candidates": max_candidates,
                                   "wall_seconds": wall, "memory": {"enabled": False}, "sandbox": {"backend": "none"}})
        assert not problems, problems
        started = time.monotonic()
        session = FixSession(RunRequest(work, settings))
        outcome = session.run()
        seconds = time.monotonic() - started
        if outcome.status is not Status.FIXED or outcome.patch is None:
            return Result(bug.name, "not_fixed", seconds, outcome.candidates_evaluated, outcome.plausible,
                          f"{outcome.status.value}: {outcome.message[:80]}", status=outcome.status.value)
        check = Path(tmp) / "check"
        shutil.copytree(bug, check, ignore=shutil.ignore_patterns("__pycache__", ".fixloop"))
        for change in outcome.patch.changes:
            (check / change.path).write_text(change.after)
        proc = subprocess.run([python, HIDDEN], cwd=check, capture_output=True, text=True, timeout=120)
        verdict = "correct" if proc.returncode == 0 else "wrong"
        return Result(bug.name, verdict, seconds, outcome.candidates_evaluated, outcome.plausible,
                      f"{outcome.patch.operator}: {outcome.patch.summary[:70]}", status=outcome.status.value)


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    sys.path.insert(0, str(BUGS.parents[1]))
    from tests.project_python import project_python
    return project_python()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--python", default=None, help="default: this one; pytest only with --smoke")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--max-candidates", type=int, default=300)
    ap.add_argument("--wall", type=float, default=60.0)
    ap.add_argument("--smoke", action="store_true", help=f"one bug ({SMOKE_BUG}): proves the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.only = [SMOKE_BUG]
    args.python = args.python or (lean_python() if args.smoke else sys.executable)
    bugs = sorted(p for p in BUGS.iterdir() if (p / HIDDEN).exists() and (not args.only or p.name in args.only))
    started = time.monotonic()
    def one(bug: Path) -> Result:
        r = run_one(bug, args.python, args.max_candidates, args.wall)
        r.kind = bug_class(bug)
        print(f"{r.name:18} {r.kind:17} {r.verdict:10} {r.seconds:6.1f}s {r.candidates:4d} cand {r.plausible:2d} plaus  {r.detail}",
              flush=True)
        return r

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, bugs))
    print()
    print(f"{'class':18} {'bugs':>4} {'correct':>8} {'wrong':>6} {'not fixed':>9} {'median s':>9} {'p90 s':>6} "
          f"{'cand/fix':>8}")
    kinds = [k for k in CLASSES if any(r.kind == k for r in results)]
    kinds += sorted({r.kind for r in results} - set(kinds))
    for kind in kinds:
        print(summary_row(kind, [r for r in results if r.kind == kind]))
    print(summary_row("total", results))
    print(f"total wall time: {time.monotonic() - started:.0f}s (jobs={args.jobs}); LLM calls: 0 (offline)")
    errored = [r.name for r in results if r.status == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + ", ".join(errored))


def summary_row(label: str, results: list[Result]) -> str:
    """One line of the table: counts, then time and candidates over the bugs that were fixed (right or wrong)."""
    correct = sum(r.verdict == "correct" for r in results)
    wrong = sum(r.verdict == "wrong" for r in results)
    fixed = [r for r in results if r.verdict != "not_fixed"]
    n = len(results)
    cells = f"{label:18} {n:4d} {correct:4d} {100 * correct / n:2.0f}% {wrong:6d} {n - len(fixed):9d}"
    if not fixed:
        return cells + f" {'-':>9} {'-':>6} {'-':>8}"
    times = sorted(r.seconds for r in fixed)
    p90 = times[min(len(times) - 1, int(round(0.9 * (len(times) - 1))))]
    return cells + f" {statistics.median(times):9.1f} {p90:6.1f} {statistics.median(r.candidates for r in fixed):8.0f}"


if __name__ == "__main__":
    main()

"""Goal mode offline (no model, no memory) on every project under bench/goal_bugs/.

Each project has a bug described only in words (`goal` in its goal.toml) or by a docstring, and no
failing test. Each is copied without its goal.toml and hidden_check.py and run through a real
`GoalSession` with `--yes` (no questions). Prints, per project and in total:

- correct failing test: the reproduction test was accepted (it fails on the buggy code on an assertion)
  AND it passes on the reference fix (goal.toml's `[reference]`, never shown to fixloop);
- fixed: the offered fix (the new test plus the code change), applied to a copy, passes the hidden check.

    PYTHONPATH=server python bench/goal_corpus.py [--only NAME ...] [--sandbox auto|bwrap|landlock|none]
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
from dataclasses import dataclass
from pathlib import Path

from fixloop.config import load
from fixloop.core.model import Status
from fixloop.goal.request import Goal
from fixloop.goal.session import GoalSession

BUGS = Path(__file__).resolve().parent / "goal_bugs"
HIDDEN, META = "hidden_check.py", "goal.toml"


@dataclass
class Result:
    name: str
    test_ok: bool
    fixed: bool
    seconds: float
    detail: str


def _passes_on_reference(bug: Path, test_path: str, test_source: str, python: str, tmp: Path) -> bool:
    ref = tomllib.loads((bug / META).read_text())["reference"]
    work = tmp / "reference"
    shutil.copytree(bug, work, ignore=shutil.ignore_patterns("__pycache__", ".fixloop"))
    target = work / ref["path"]
    target.write_text(target.read_text().replace(ref["old"], ref["new"], 1))
    (work / test_path).parent.mkdir(parents=True, exist_ok=True)
    (work / test_path).write_text(test_source)
    proc = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_path], cwd=work,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode == 0


def _fix_passes_hidden(bug: Path, session: GoalSession, python: str, tmp: Path) -> bool:
    check = tmp / "check"
    shutil.copytree(bug, check, ignore=shutil.ignore_patterns("__pycache__", ".fixloop"))
    assert session.outcome is not None and session.outcome.patch is not None
    for change in session.outcome.patch.changes:
        (check / change.path).parent.mkdir(parents=True, exist_ok=True)
        (check / change.path).write_text(change.after)
    proc = subprocess.run([python, HIDDEN], cwd=check, capture_output=True, text=True, timeout=120)
    tests = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=check,
                           capture_output=True, text=True, timeout=120)
    return proc.returncode == 0 and tests.returncode == 0


def run_one(bug: Path, python: str, sandbox: str, wall: float) -> Result:
    goal = tomllib.loads((bug / META).read_text())["goal"]
    with tempfile.TemporaryDirectory(prefix="fixloop-goal-bench-") as tmp_name:
        tmp = Path(tmp_name)
        work = tmp / bug.name
        shutil.copytree(bug, work, ignore=shutil.ignore_patterns(HIDDEN, META, "__pycache__", ".fixloop"))
        settings, problems = load({"python": python, "offline": True, "wall_seconds": wall, "max_candidates": 300,
                                   "memory": {"enabled": False}, "sandbox": {"backend": sandbox}})
        assert not problems, problems
        started = time.monotonic()
        session = GoalSession(work, settings, Goal(goal, yes=True), notes=())
        outcome = session.run()
        seconds = time.monotonic() - started
        p = session.prepared
        test_ok = p is not None and p.verification.ok and _passes_on_reference(bug, p.test.path, p.test.source,
                                                                               python, tmp)
        fixed = outcome.status is Status.FIXED and _fix_passes_hidden(bug, session, python, tmp)
        detail = (f"{p.test.origin}: {p.spec.expected[:50]}" if p else outcome.message[:90])
        if p and outcome.status is not Status.FIXED:
            detail += f" | {outcome.status.value}: {outcome.message[:50]}"
        return Result(bug.name, test_ok, fixed, seconds, detail)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--sandbox", default="auto")
    ap.add_argument("--wall", type=float, default=120.0)
    args = ap.parse_args()
    bugs = sorted(p for p in BUGS.iterdir() if (p / META).exists() and (not args.only or p.name in args.only))
    started = time.monotonic()
    results = []
    for bug in bugs:
        r = run_one(bug, args.python, args.sandbox, args.wall)
        results.append(r)
        print(f"{r.name:22} test {'yes' if r.test_ok else 'no ':3}  fixed {'yes' if r.fixed else 'no ':3} "
              f"{r.seconds:6.1f}s  {r.detail}", flush=True)
    n = len(results)
    tests = sum(r.test_ok for r in results)
    fixed = sum(r.fixed for r in results)
    print()
    print(f"correct failing test: {tests}/{n} ({100 * tests / n:.0f}%); fixed (hidden check passes): "
          f"{fixed}/{n} ({100 * fixed / n:.0f}%); median {statistics.median(r.seconds for r in results):.1f} s "
          f"per goal; total {time.monotonic() - started:.0f} s; sandbox {args.sandbox}; model calls: 0 (offline)")


if __name__ == "__main__":
    main()

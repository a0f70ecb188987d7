"""Candidate validation throughput: warm fork-server workers vs a fresh pytest process per candidate.

The same candidates (the offline engine's first N for a corpus bug) are screened both ways, side by
side in one run, with one and with two lanes; the verdicts (targets pass or not) must agree.

    PYTHONPATH=server python bench/repair_validation.py [--bug binary_search] [-n 24] [--smoke]

`--smoke`: 4 candidates, on an interpreter with pytest only unless `--python` says otherwise, to prove the bench
still runs (and that the verdicts agree).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from fixloop.core.model import Limits, Patch, TestReport
from fixloop.core.ports import ProposalContext
from fixloop.core.integrity import is_test_file
from fixloop.engines.repair.localize import TracebackLocalizer
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.plain import PlainSandbox

BUGS = Path(__file__).resolve().parent / "bugs"


def verdict(report: TestReport, targets: tuple[str, ...]) -> str:
    seen = {r.nodeid: r for r in report.results}
    if report.timed_out:
        return "killed"
    return "pass" if targets and all(t in seen and not seen[t].failed for t in targets) else "fail"


def lanes(run: Callable[[Patch], TestReport], patches: list[Patch], width: int) -> tuple[float, list[TestReport]]:
    """Screen every patch with `width` threads; returns seconds and reports in patch order."""
    reports: list[TestReport | None] = [None] * len(patches)
    nxt = iter(range(len(patches)))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                i = next(nxt, None)
            if i is None:
                return
            reports[i] = run(patches[i])

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(width)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - started, [r for r in reports if r is not None]


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    sys.path.insert(0, str(BUGS.parents[1]))
    from tests.project_python import project_python
    return project_python()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bug", default="binary_search")
    ap.add_argument("-n", type=int, default=24)
    ap.add_argument("--python", default=None, help="default: this one; pytest only with --smoke")
    ap.add_argument("--smoke", action="store_true", help="4 candidates: proves the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.n = 4
    args.python = args.python or (lean_python() if args.smoke else sys.executable)
    workspace = BUGS / args.bug
    limits = Limits(test_timeout=60, per_test_timeout=10)
    warm = PytestRunner.open(workspace, PlainSandbox(), limits, args.python, warm_workers=2)
    cold = [PytestRunner.open(workspace, PlainSandbox(), limits, args.python, warm_workers=0) for _ in range(2)]
    try:
        baseline = warm.run(None)
        for c in cold:
            c.run(None)
        targets = tuple(r.nodeid for r in baseline.failed)
        ctx = ProposalContext(warm.sources(), baseline, targets, is_test_file=is_test_file)
        ctx.suspects = TracebackLocalizer(is_test_file).localize(baseline, ctx.sources, targets)
        patches = [p for _, p in zip(range(args.n), MutationProposer().propose(ctx))]
        warm.run(patches[0], targets, fail_fast=True)  # start the workers outside the timing
        print(f"bug: {args.bug}   candidates: {len(patches)}   targets: {len(targets)}   python: {args.python}")

        rows = []
        for width in (1, 2):
            tw, rw = lanes(lambda p: warm.run(p, targets, fail_fast=True), patches, width)
            if width == 1:
                tc, rc = lanes(lambda p: cold[0].run(p, targets, fail_fast=True), patches, 1)
            else:
                # Two cold lanes need two scratch copies: a cold run writes the candidate into its copy.
                half = (len(patches) + 1) // 2
                parts: list[tuple[float, list[TestReport]]] = []
                ts = [threading.Thread(target=lambda c=c, ps=ps: parts.append(
                    lanes(lambda p: c.run(p, targets, fail_fast=True), ps, 1))) for c, ps in
                    zip(cold, (patches[:half], patches[half:]))]
                started = time.monotonic()
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                tc = time.monotonic() - started
                rc = []
            agree = all(verdict(a, targets) == verdict(b, targets) for a, b in zip(rw, rc)) if rc else True
            rows.append((width, tc, tw, agree))
            print(f"lanes={width}: fresh pytest {len(patches) / tc:6.2f} cand/s ({tc:5.1f}s)   "
                  f"warm workers {len(patches) / tw:6.2f} cand/s ({tw:5.1f}s)   speed-up {tc / tw:5.1f}x"
                  + ("   verdicts agree" if width == 1 and agree else "" if width == 2 else "   VERDICTS DIFFER"))
        passing = sum(verdict(r, targets) == "pass" for r in rw)
        print(f"candidates passing their targets: {passing}; killed (hung): {warm.killed}")
    finally:
        warm.close()
        for c in cold:
            c.close()
    if args.smoke and not all(agree for *_, agree in rows):
        sys.exit("the warm workers' verdicts differ from a fresh pytest's")


if __name__ == "__main__":
    main()

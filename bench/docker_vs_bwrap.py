"""The docker backend against bubblewrap, side by side in one run: candidate validation (warm workers and a
fresh pytest per candidate) and whole fixes of the README's demo project.

    DOCKER_HOST=unix://... PYTHONPATH=server python bench/docker_vs_bwrap.py [--bug binary_search] [-n 12] [--fixes 3]
        [--smoke]

`bash scripts/docker_engine.sh start && bash scripts/docker_engine.sh image` gives an engine and its image. The
backends alternate within each round so that machine load hits both alike; prints medians. `--smoke`: 2 candidates
(on an interpreter with pytest only unless `--python` says otherwise) and one fix per backend, to prove the bench
still runs.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from fixloop.core.integrity import is_test_file  # noqa: E402
from fixloop.core.model import Limits, Patch  # noqa: E402
from fixloop.core.ports import ProposalContext  # noqa: E402
from fixloop.engines.repair.localize import TracebackLocalizer  # noqa: E402
from fixloop.engines.repair.mutate import MutationProposer  # noqa: E402
from fixloop.adapters.runner.pytest_runner import PytestRunner  # noqa: E402
from fixloop.adapters.sandbox.select import probe  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
BUGS = REPO / "bench" / "bugs"
BACKENDS = ("bwrap", "docker")


def candidates(workspace: Path, python: str, n: int) -> tuple[list[Patch], tuple[str, ...]]:
    """The offline engine's first `n` candidates for the bug, and its failing tests."""
    sandbox, _ = probe("bwrap")
    runner = PytestRunner.open(workspace, sandbox, Limits(test_timeout=60, per_test_timeout=10), python, warm_workers=0)
    try:
        baseline = runner.run(None)
        targets = tuple(r.nodeid for r in baseline.failed)
        ctx = ProposalContext(runner.sources(), baseline, targets, is_test_file=is_test_file)
        ctx.suspects = TracebackLocalizer(is_test_file).localize(baseline, ctx.sources, targets)
        return [p for _, p in zip(range(n), MutationProposer().propose(ctx))], targets
    finally:
        runner.close()


def validation(workspace: Path, python: str, patches: list[Patch], targets: tuple[str, ...]) -> dict[str, float]:
    """Seconds per candidate for each backend, warm (one lane) and cold, interleaved candidate by candidate."""
    limits = Limits(test_timeout=60, per_test_timeout=10)
    runners = {}
    for name in BACKENDS:
        sandbox, reason = probe(name)
        if sandbox is None:
            sys.exit(f"{name} does not work here: {reason}")
        warm = PytestRunner.open(workspace, sandbox, limits, python, warm_workers=1)
        warm.run(None)
        warm.run(patches[0], targets, fail_fast=True)  # start the worker outside the timing
        runners[f"{name} warm"] = warm
        runners[f"{name} cold"] = PytestRunner.open(workspace, sandbox, limits, python, warm_workers=0)
        runners[f"{name} cold"].run(None)
    times: dict[str, list[float]] = {k: [] for k in runners}
    try:
        for patch in patches:
            for label, runner in runners.items():
                started = time.monotonic()
                runner.run(patch, targets, fail_fast=True)
                times[label].append(time.monotonic() - started)
    finally:
        for runner in runners.values():
            runner.close()
    return {k: statistics.median(v) for k, v in times.items()}


def fixes(rounds: int) -> dict[str, float]:
    """Median wall seconds of `fixloop fix examples/inventory --dry-run` per backend (warm workers on)."""
    times: dict[str, list[float]] = {name: [] for name in BACKENDS}
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-") as tmp:
        for _ in range(rounds):
            for name in BACKENDS:
                project = Path(tmp) / f"inventory-{name}"
                shutil.rmtree(project, ignore_errors=True)
                shutil.copytree(REPO / "examples" / "inventory", project,
                                ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
                started = time.monotonic()
                done = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--dry-run", "--json",
                                       "--no-memory", "--offline", "--sandbox", name], capture_output=True, text=True,
                                      env=env, timeout=600)
                elapsed = time.monotonic() - started
                if json.loads(done.stdout or "{}").get("status") != "fixed":
                    sys.exit(f"{name}: the demo was not fixed: {done.stderr[-500:]}")
                times[name].append(elapsed)
    return {k: statistics.median(v) for k, v in times.items()}


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process, a minute over a smoke run."""
    sys.path.insert(0, str(REPO))
    from tests.project_python import project_python
    return project_python()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bug", default="binary_search")
    ap.add_argument("-n", type=int, default=12)
    ap.add_argument("--fixes", type=int, default=3)
    ap.add_argument("--python", default=None, help="default: this one; pytest only with --smoke")
    ap.add_argument("--smoke", action="store_true", help="2 candidates, 1 fix per backend: proves the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.n, args.fixes = 2, 1
    args.python = args.python or (lean_python() if args.smoke else sys.executable)
    workspace = BUGS / args.bug
    patches, targets = candidates(workspace, args.python, args.n)
    per_candidate = validation(workspace, args.python, patches, targets)
    whole = fixes(args.fixes)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; bug {args.bug}, {len(patches)} candidates")
    print("seconds per candidate (median): " + ", ".join(f"{k} {v:.3f}" for k, v in per_candidate.items()))
    for name in BACKENDS:
        print(f"{name}: warm workers screen {per_candidate[f'{name} cold'] / per_candidate[f'{name} warm']:.1f}x "
              "faster than a fresh pytest per candidate")
    print(f"docker / bwrap per candidate: warm x{per_candidate['docker warm'] / per_candidate['bwrap warm']:.2f}, "
          f"cold x{per_candidate['docker cold'] / per_candidate['bwrap cold']:.2f}")
    print("fixloop fix examples/inventory --dry-run, wall seconds (median of "
          f"{args.fixes}): " + ", ".join(f"{k} {v:.1f}" for k, v in whole.items())
          + f"; docker / bwrap x{whole['docker'] / whole['bwrap']:.2f}")


if __name__ == "__main__":
    main()

"""Per-run overhead of each working sandbox backend against a plain subprocess, measured side by side.

    PYTHONPATH=server python bench/sandbox_overhead.py [--runs 30] [--pytest-runs 8] [--smoke]

Two workloads: `python -c pass` and a 20-test pytest run, each on a fresh copy of a one-file tree. Backends are interleaved within each round so
machine load hits all of them alike. Prints medians and the added milliseconds per run (target for
bwrap: at most 30 ms). `--smoke`: 3 and 1 rounds, to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from fixloop.adapters.runner.interpreter import interpreter_paths  # noqa: E402
from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits  # noqa: E402
from fixloop.adapters.sandbox.select import probe  # noqa: E402

TESTS = "\n".join(f"def test_{i}():\n    assert sum(range({i})) == {sum(range(i))}\n" for i in range(20))


# Only pytest itself: the dev environment's plugins (pytest-lsp imports lsprotocol, about 1 s) would
# drown the difference being measured.
ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def plain(argv: list[str], ws: Path) -> None:
    subprocess.run(argv, cwd=ws, capture_output=True, check=True, timeout=120,
                   env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", **ENV})


def through(backend: Any, policy: Policy) -> Callable[[list[str], Path], None]:
    def run(argv: list[str], ws: Path) -> None:
        # Each run gets its own fresh copy of `ws` (part of the overhead being measured).
        result = backend.run(argv, RunTree(ws), SandboxLimits(wall_seconds=120), policy)
        if result.returncode != 0:
            raise RuntimeError(f"{backend.name}: exit {result.returncode}: {result.output[-500:]}")
    return run


def measure(runners: dict[str, Callable[[list[str], Path], None]], argv: list[str], ws: Path,
            rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in runners}
    for name, run in runners.items():  # warm-up: page cache, probes, pyc
        run(argv, ws)
    for _ in range(rounds):
        for name, run in runners.items():
            started = time.perf_counter()
            run(argv, ws)
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) * 1000 for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--pytest-runs", type=int, default=8)
    parser.add_argument("--smoke", action="store_true", help="3 and 1 rounds: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.pytest_runs = 3, 1
    py = sys.executable
    policy = Policy(read_only=interpreter_paths(py), env={"PATH": f"{Path(py).parent}:/usr/bin:/bin", **ENV})
    runners: dict[str, Callable[[list[str], Path], None]] = {"subprocess": plain}
    for name in ("none", "bwrap", "landlock", "docker"):
        backend, reason = probe(name)
        if backend is None:
            print(f"{name:10s} skipped: {reason[:100]}")
            continue
        runners[name] = through(backend, policy)
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        Path(tmp).chmod(0o755)
        (ws / "test_twenty.py").write_text(TESTS)
        rows = [
            ("python -c pass", measure(runners, [py, "-c", "pass"], ws, args.runs)),
            ("pytest, 20 tests", measure(runners, [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"], ws,
                                         args.pytest_runs)),
        ]
    names = list(runners)
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'workload':18s}" + "".join(f"{n:>14s}" for n in names) + "   (median ms per run)")
    for label, medians in rows:
        print(f"{label:18s}" + "".join(f"{medians[n]:14.1f}" for n in names))
    print(f"\n{'added vs subprocess':18s}" + "".join(f"{n:>14s}" for n in names[1:]) + "   (ms; target bwrap <= 30)")
    for label, medians in rows:
        base = medians["subprocess"]
        print(f"{label:18s}" + "".join(f"{medians[n] - base:+14.1f}" for n in names[1:]))
    for label, medians in rows:
        base = medians["subprocess"]
        print(f"{label}: " + ", ".join(f"{n} x{medians[n] / base:.2f}" for n in names[1:]))


if __name__ == "__main__":
    main()

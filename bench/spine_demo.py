"""The README demo, timed: copy, baseline, localization, candidates, and the ratio to one plain pytest run.

Run: .venv/bin/python bench/spine_demo.py [--sandbox auto|none] [--repeat 3] [--python PATH] [--smoke]

`--python` is the interpreter of both the plain run and the fix (default: this one, which carries the dev
environment's pytest plugins, each loaded by every pytest process; a project's own virtualenv usually has fewer).
`--smoke`: one repetition, on an interpreter with pytest only unless `--python` says otherwise, to prove the bench
still runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "server"))

from fixloop.application.config import load  # noqa: E402
from fixloop.application.session import FixSession  # noqa: E402
from fixloop.application.run import RunRequest  # noqa: E402


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    sys.path.insert(0, str(REPO))
    from tests.project_python import project_python
    return project_python()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=None, help="default: this one; pytest only with --smoke")
    parser.add_argument("--smoke", action="store_true", help="one repetition: proves the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.repeat = 1
    args.python = args.python or (lean_python() if args.smoke else sys.executable)
    rows: list[dict[str, float]] = []
    plain: list[float] = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "inventory"
            shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
            t0 = time.monotonic()
            subprocess.run([args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project,
                           capture_output=True, timeout=300)
            plain.append(time.monotonic() - t0)
            settings, _ = load({"python": args.python, "sandbox": {"backend": args.sandbox},
                                "memory": {"enabled": False}, "offline": True})
            session = FixSession(RunRequest(project, settings))
            outcome = session.run()
            assert outcome.status.value == "fixed", outcome.message
            d = dict(outcome.durations)
            d["candidates_evaluated"] = outcome.candidates_evaluated
            d["test_runs"] = outcome.test_runs
            rows.append(d)
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    one = statistics.median(plain)
    backend = args.sandbox
    loadavg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"README demo on examples/inventory (sandbox={backend}, python={args.python}, median of {args.repeat}, "
          f"load average {loadavg})")
    for key in ("copy", "baseline", "localize", "candidates", "total"):
        print(f"  {key:<11} {med.get(key, 0.0):7.2f} s")
    rest = med["total"] - sum(med.get(k, 0.0) for k in ("baseline", "localize", "candidates"))
    print(f"  other       {rest:7.2f} s   (interpreter probe, flakiness re-run, proposing)")
    print(f"  candidates evaluated {med['candidates_evaluated']:.0f}, test runs {med['test_runs']:.0f}")
    print(f"  one plain pytest run  {one:7.2f} s")
    print(f"  ratio whole run / plain pytest run: {med['total'] + med.get('copy', 0.0):.2f} / {one:.2f} = "
          f"{(med['total'] + med.get('copy', 0.0)) / one:.1f}x")


if __name__ == "__main__":
    main()

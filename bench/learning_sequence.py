"""Does fixloop get cheaper as a team keeps meeting the same kinds of bug? One memory across a sequence.

The sequence (bench/learning_bugs/sequence.toml) is 12 bugs in 4 recurring classes (a strict limit that
should be non-strict, a missing None guard, swapped arguments, an off-by-one loop bound) met in the order
a team would: the four of project `stockroom`, then `gradebook`'s, then `transit`'s. Each bug is one edit
to a correct project; its hidden check (hidden_checks.py, never copied into what fixloop sees) judges
whether the fix is right, not just whether the visible test passes.

The sequence runs twice in one invocation, side by side in the table: with ONE real LanceDB memory on
disk (a temp dir, empty at the start) kept across all 12 bugs, and with the memory disabled. Offline (no
model), the sandbox the CLI would choose, the strategy bandit on `auto`. Prints candidates per bug and,
per third of the sequence, candidates per fix; the goal is at least 5x fewer in the last third than in
the first with the memory.

`--templates` adds the mined-template step when the product has it: after the first two projects the
memory's templates are mined and approved as a user would (`fixloop memory templates approve`), and the
third project's bugs are fixed with them (`template` runs in the table).

    PYTHONPATH=server python bench/learning_sequence.py [--seed 0] [--json] [--python PY] [--templates] [--smoke]
        [--bugs bench/learning_heldout]

`--bugs bench/learning_heldout` runs a second sequence of the same shape (a thermostat, a ledger and a kiosk:
clamps, limits, ranges one short, exchanged arguments), written apart from the product's development and
never tuned against: the figure for bugs the code was not developed on.

`--smoke` runs the first bug of each project (a third each), both ways, on an interpreter with pytest only
unless `--python` says otherwise, to prove the bench still runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from fixloop.application.config import load  # noqa: E402
from fixloop.core.model import Outcome, Status  # noqa: E402
from fixloop.application.session import FixSession  # noqa: E402
from fixloop.application.run import RunRequest  # noqa: E402

BUGS = ROOT / "bench" / "learning_bugs"
HIDDEN = "hidden_checks.py"


@dataclasses.dataclass
class Run:
    bug: str
    cls: str
    status: str
    candidates: int
    seconds: float
    fixed_by: str
    correct: bool
    strategy: str


def set_bugs(folder: Path) -> None:
    global BUGS
    BUGS = folder.resolve()


def sequence() -> list[dict[str, str]]:
    return list(tomllib.loads((BUGS / "sequence.toml").read_text())["bug"])


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    sys.path.insert(0, str(ROOT))
    from tests.project_python import project_python
    return project_python()


def buggy_copy(bug: dict[str, str], where: Path, hidden: bool) -> Path:
    """The bug's project with its one edit made; the hidden checks only in the judge's copy."""
    work = where / f"{bug['id']}-{time.monotonic_ns()}"
    shutil.copytree(BUGS / bug["project"], work,
                    ignore=shutil.ignore_patterns("__pycache__", ".fixloop", *(() if hidden else (HIDDEN,))))
    path = work / bug["file"]
    text = path.read_text()
    if text.count(bug["fixed"]) != 1:
        raise SystemExit(f"{bug['id']}: {bug['fixed']!r} must occur exactly once in {bug['file']}")
    path.write_text(text.replace(bug["fixed"], bug["bug"]))
    return work


def judge(bug: dict[str, str], outcome: Outcome, where: Path, python: str) -> bool:
    """Apply the fix to a fresh copy that has the hidden checks, and run the bug's check."""
    if outcome.status is not Status.FIXED or outcome.patch is None:
        return False
    check = buggy_copy(bug, where, hidden=True)
    for change in outcome.patch.changes:
        (check / change.path).write_text(change.after)
    proc = subprocess.run([python, "-c", f"import hidden_checks; hidden_checks.{bug['check']}()"], cwd=check,
                          capture_output=True, text=True, timeout=300)
    return proc.returncode == 0


def fix(bug: dict[str, str], settings_data: dict[str, Any], where: Path, seed: int, python: str) -> Run:
    settings, problems = load(settings_data)
    assert not problems, problems
    work = buggy_copy(bug, where, hidden=False)
    started = time.monotonic()
    session = FixSession(RunRequest(work, settings, seed=seed))
    outcome = session.run()
    seconds = time.monotonic() - started
    by = f"{outcome.patch.proposer}/{outcome.patch.operator}" if outcome.patch else "-"
    return Run(bug["id"], bug["class"], outcome.status.value, outcome.candidates_evaluated, round(seconds, 1), by,
               judge(bug, outcome, where, python), session.strategy.strategy)


def run_sequence(bugs: list[dict[str, str]], settings_data: dict[str, Any], where: Path, seed: int, python: str,
                 label: str, between: Callable[[int], None] = lambda i: None) -> list[Run]:
    runs = []
    for i, bug in enumerate(bugs):
        between(i)
        r = fix(bug, settings_data, where, seed + i, python)
        print(f"[{label}] {i + 1:2}/{len(bugs)} {r.bug:22} {r.status:8} {r.candidates:4} cand {r.seconds:6.1f}s "
              f"{'correct' if r.correct else 'WRONG' if r.status == 'fixed' else '-':7} {r.fixed_by} ({r.strategy})",
              file=sys.stderr, flush=True)
        runs.append(r)
    return runs


def per_fix(runs: list[Run]) -> str:
    """Candidates spent in these runs (failed runs included) per correct fix."""
    correct = sum(r.correct for r in runs)
    spent = sum(r.candidates for r in runs)
    return f"{spent / correct:.1f}" if correct else f"{spent}/0"


def third_ratio(runs: list[Run]) -> float:
    n = len(runs) // 3
    first, last = runs[:n], runs[-n:]
    a = sum(r.candidates for r in first) / max(sum(r.correct for r in first), 1)
    b = sum(r.candidates for r in last) / max(sum(r.correct for r in last), 1)
    return a / b if b else float("inf")


def approve_templates(memory: Path, third: int) -> Callable[[int], None]:
    """Before the third project (bug `third`): mine and approve the memory's templates as a user would (product
    CLI)."""
    def step(i: int) -> None:
        if i != third:
            return
        fixloop = [sys.executable, "-m", "fixloop"]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
        listed = subprocess.run(fixloop + ["memory", "templates", "list", "--json", "--memory", str(memory)],
                                capture_output=True, text=True, env=env)
        try:
            found = json.loads(listed.stdout or "[]")
        except ValueError:
            found = []
        if listed.returncode or not found:
            print(f"[templates] none mined (rc {listed.returncode}): {listed.stderr[-500:]}", file=sys.stderr)
        for t in found:
            mined_from = sorted({str(e.get("project", "?")) for e in t.get("examples", [])})
            print(f"[templates] {t['id']} {t['status']}: {t['before_shape']}  ->  {t['after_shape']} "
                  f"(support {t['support']}, mined from {', '.join(mined_from)})", file=sys.stderr)
        names = [t["id"] for t in found if t.get("status") == "proposed"]
        for name in names:
            done = subprocess.run(fixloop + ["memory", "templates", "approve", name, "--memory", str(memory)],
                                  capture_output=True, text=True, env=env)
            print(f"[templates] approve {name}: rc {done.returncode} {done.stdout.strip()[:200]}", file=sys.stderr)
    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="bug i runs with seed SEED + i")
    parser.add_argument("--python", default=None,
                        help="the interpreter that runs the bugs' tests (default: this one; pytest only with --smoke)")
    parser.add_argument("--templates", action="store_true", help="mine and approve templates before project 3")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="the first bug of each project only")
    parser.add_argument("--bugs", type=Path, default=BUGS,
                        help="the folder of the sequence (sequence.toml and its projects); "
                             "bench/learning_heldout is a second one, written apart from the product's development")
    args = parser.parse_args()
    set_bugs(args.bugs)
    args.python = args.python or (lean_python() if args.smoke else sys.executable)
    bugs = sequence()
    if args.smoke:
        bugs = [b for i, b in enumerate(bugs) if i == 0 or bugs[i - 1]["project"] != b["project"]]
    third_project = next(i for i, b in enumerate(bugs) if b["project"] == bugs[-1]["project"])
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fixloop-bench-learning-") as tmp:
        scratch = Path(tmp)
        os.environ["XDG_DATA_HOME"] = str(scratch / "data")  # the history's project list stays in the temp dir
        memory = scratch / "memory"
        base = {"python": args.python, "offline": True}
        between = approve_templates(memory, third_project) if args.templates else lambda i: None
        with_memory = run_sequence(bugs, {**base, "memory": {"uri": str(memory)}}, scratch, args.seed, args.python,
                                   "memory", between)
        without = run_sequence(bugs, {**base, "memory": {"enabled": False}}, scratch, args.seed, args.python,
                               "no memory")
    elapsed = time.monotonic() - started

    header = f"{'#':>2} {'bug':22} {'class':13} | {'memory':>6} {'ok':>3} {'fixed by':28} | {'none':>5} {'ok':>3} fixed by"
    print(header)
    print("-" * len(header))
    for i, (m, n) in enumerate(zip(with_memory, without)):
        print(f"{i + 1:>2} {m.bug:22} {m.cls:13} | {m.candidates:>6} {'y' if m.correct else 'n':>3} "
              f"{(m.fixed_by + ' ' + m.strategy)[:28]:28} | {n.candidates:>5} {'y' if n.correct else 'n':>3} {n.fixed_by}")
    third = len(bugs) // 3
    print()
    for name, runs in (("memory", with_memory), ("no memory", without)):
        parts = [runs[k * third:(k + 1) * third] for k in range(3)]
        print(f"{name:9}: candidates per correct fix by third {' / '.join(per_fix(p) for p in parts)}; "
              f"first/last third {third_ratio(runs):.1f}x; correct {sum(r.correct for r in runs)}/{len(runs)}, "
              f"plausible but wrong {sum(r.status == 'fixed' and not r.correct for r in runs)}; "
              f"median s per run {statistics.median(r.seconds for r in runs):.1f}")
    by_template = [f"{r.bug} ({r.fixed_by.split('/', 1)[1]}{'' if r.correct else ', WRONG'})"
                   for r in with_memory if r.fixed_by.startswith("template/")]
    print(f"fixed by a mined template (memory): {', '.join(by_template) or 'none'}")
    print(f"goal: memory's first/last third >= 5x; wall time {elapsed:.0f} s; strategies used with memory: "
          f"{', '.join(sorted({r.strategy for r in with_memory}))}")
    if args.json:
        print(json.dumps({"memory": [dataclasses.asdict(r) for r in with_memory],
                          "no_memory": [dataclasses.asdict(r) for r in without]}))
    errored = [r.bug for r in with_memory + without if r.status == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + ", ".join(errored))


if __name__ == "__main__":
    main()

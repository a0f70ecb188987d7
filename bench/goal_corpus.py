"""Goal mode on every project under bench/goal_bugs/: offline (no model), with the scripted model, or both.

Each project has a bug described only in words (`goal` in its goal.toml) or by a docstring, and no
failing test. Each is copied without its goal.toml and hidden_check.py and run through a real
`GoalSession` with `--yes` (no questions). Prints, per project and in total:

- correct failing test: the reproduction test was accepted (it fails on the buggy code on an assertion)
  AND it passes on the reference fix (goal.toml's `[reference]`, never shown to fixloop);
- fixed: the offered fix (the new test plus the code change), applied to a copy, passes the hidden check.

With `--model scripted` the goal author is the model path: a scripted Anthropic-compatible server on
127.0.0.1 (tests/llm/general_goal_model.py, a fake key, no network) answers every request from what
fixloop sent it (the goal's words and the code context: examples in the goal text or in a docstring),
knowing no case. It measures the model path (tools, budget, fallback, the verification of a model's
test), not a real model's judgement; it writes no repairs, so the fixes come from the engine.
`--model both` runs each case both ways and prints the two rows side by side.

    PYTHONPATH=server python bench/goal_corpus.py [--model offline|scripted|both] [--cases NAME ...]
        [--sandbox auto|bwrap|landlock|none] [--smoke]

`--smoke` runs one case both ways, on an interpreter with pytest only unless `--python` says otherwise, to prove
the bench still runs.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fixloop.application.config import load
from fixloop.core.model import Status
from fixloop.application.goal.request import Goal
from fixloop.application.goal.session import GoalSession
from fixloop.application.run import RunRequest
from fixloop.application.wiring import with_api_key

ROOT = Path(__file__).resolve().parent.parent
FAKE_KEY = "fake-key-not-real"  # the scripted server checks none; no real key is ever read

BUGS = Path(__file__).resolve().parent / "goal_bugs"
HIDDEN, META = "hidden_check.py", "goal.toml"
SMOKE_CASE = "adult"


@dataclass
class Result:
    name: str
    test_ok: bool
    fixed: bool
    seconds: float
    detail: str
    origin: str = ""  # who wrote the accepted test ("model", or the offline author's "docstring", "goal-text"...)
    calls: int = 0  # requests the scripted server answered for this case
    repair_calls: int = 0  # of those, the repair model's (plan, candidates, reflections)
    status: str = ""  # the session's end (`error`: the run itself failed, not the goal)


def lean_python() -> str:
    """The tests' interpreter with pytest only (tests/project_python.py, built once under .cache/): the dev
    environment's plugins cost about 1.5 s in every pytest process a fix starts, a minute over a smoke run."""
    sys.path.insert(0, str(ROOT))
    from tests.project_python import project_python
    return project_python()


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


def run_one(bug: Path, python: str, sandbox: str, wall: float, model_url: str = "") -> Result:
    goal = tomllib.loads((bug / META).read_text())["goal"]
    with tempfile.TemporaryDirectory(prefix="fixloop-goal-bench-") as tmp_name:
        tmp = Path(tmp_name)
        work = tmp / bug.name
        shutil.copytree(bug, work, ignore=shutil.ignore_patterns(HIDDEN, META, "__pycache__", ".fixloop"))
        data = {"python": python, "offline": not model_url, "wall_seconds": wall, "max_candidates": 300,
                "memory": {"enabled": False}, "sandbox": {"backend": sandbox}}
        if model_url:
            data["llm"] = {"base_url": model_url, "max_retries": 0}
        settings, problems = load(data)
        assert not problems, problems
        if model_url:
            settings = with_api_key(settings, FAKE_KEY)
        started = time.monotonic()
        session = GoalSession(RunRequest(work, settings, notes=()), Goal(goal, yes=True))
        outcome = session.run()
        seconds = time.monotonic() - started
        p = session.prepared
        test_ok = p is not None and p.verification.ok and _passes_on_reference(bug, p.test.path, p.test.source,
                                                                               python, tmp)
        fixed = outcome.status is Status.FIXED and _fix_passes_hidden(bug, session, python, tmp)
        detail = (f"{p.test.origin}: {p.spec.expected[:50]}" if p else outcome.message[:90])
        if p and outcome.status is not Status.FIXED:
            detail += f" | {outcome.status.value}: {outcome.message[:50]}"
        notes = getattr(session.author, "notes", [])
        if notes:
            detail += f" | note: {notes[0][:60]}"
        return Result(bug.name, test_ok, fixed, seconds, detail, origin=p.test.origin if p else "",
                      status=outcome.status.value)


def _summary(label: str, results: list[Result], seconds: float, sandbox: str) -> str:
    n = len(results)
    tests = sum(r.test_ok for r in results)
    fixed = sum(r.fixed for r in results)
    line = (f"{label:9} correct failing test: {tests}/{n} ({100 * tests / n:.0f}%); fixed (hidden check passes): "
            f"{fixed}/{n} ({100 * fixed / n:.0f}%); median {statistics.median(r.seconds for r in results):.1f} s "
            f"per goal; total {seconds:.0f} s; sandbox {sandbox}; ")
    if label == "offline":
        return line + "model calls: 0"
    return line + (f"model calls: {sum(r.calls for r in results)} (repair model: {sum(r.repair_calls for r in results)}); "
                   f"tests written by the model: "
                   f"{sum(r.origin == 'model' for r in results)}/{n}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", "--cases", dest="only", nargs="*", default=None)
    ap.add_argument("--model", choices=("offline", "scripted", "both"), default="offline")
    ap.add_argument("--python", default=None, help="default: this one; pytest only with --smoke")
    ap.add_argument("--sandbox", default="auto")
    ap.add_argument("--wall", type=float, default=120.0)
    ap.add_argument("--smoke", action="store_true", help=f"one case ({SMOKE_CASE}), offline and scripted")
    args = ap.parse_args()
    if args.smoke:
        args.only, args.model = [SMOKE_CASE], "both"
    args.python = args.python or (lean_python() if args.smoke else sys.executable)
    bugs = sorted(p for p in BUGS.iterdir() if (p / META).exists() and (not args.only or p.name in args.only))
    modes = ("offline", "scripted") if args.model == "both" else (args.model,)
    results: dict[str, list[Result]] = {m: [] for m in modes}
    spent = {m: 0.0 for m in modes}
    with contextlib.ExitStack() as stack:
        fake = model = None
        if "scripted" in modes:
            sys.path.insert(0, str(ROOT))  # the scripted server lives with the tests
            from tests.llm.fake_anthropic import FakeAnthropic
            from tests.llm.general_goal_model import GeneralGoalModel
            fake = stack.enter_context(FakeAnthropic())
            model = GeneralGoalModel()
            fake.fallback = model
        for bug in bugs:
            for mode in modes:
                before = len(fake.messages_requests()) if fake is not None else 0
                steps_before = len(model.steps) if model is not None else 0
                started = time.monotonic()
                r = run_one(bug, args.python, args.sandbox, args.wall, fake.url if mode == "scripted" and fake else "")
                spent[mode] += time.monotonic() - started
                if mode == "scripted" and fake is not None:
                    r.calls = len(fake.messages_requests()) - before
                    r.repair_calls = sum(s in ("plan", "propose", "reflect") for s in model.steps[steps_before:])
                results[mode].append(r)
                extra = f" {r.calls:3} calls ({r.repair_calls} repair), test by {r.origin or 'nobody'}" if mode == "scripted" else ""
                print(f"{r.name:22} {mode:8} test {'yes' if r.test_ok else 'no ':3}  fixed {'yes' if r.fixed else 'no ':3} "
                      f"{r.seconds:6.1f}s{extra}  {r.detail}", flush=True)
    print()
    for mode in modes:
        print(_summary(mode, results[mode], spent[mode], args.sandbox))
    errored = [f"{r.name} ({mode}): {r.detail}" for mode in modes for r in results[mode] if r.status == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + "; ".join(errored))


if __name__ == "__main__":
    main()

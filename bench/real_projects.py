"""fixloop on real projects as users have them: offline, no memory, defaults, measured against plain pytest.

The projects (bench/real_projects/projects.toml) are built by bench/real_projects/fetch.py from pinned
sdists into git repositories with their virtualenv and editable install. For each injected bug
(bench/real_projects/bugs.toml) the built project is reset to its commit (ignored files such as the
generated version file and an inside `.venv` stay, as in a user's checkout), the bug is applied as an
uncommitted change, one plain pytest of the project's own test command is timed, and then fixloop runs
exactly as a user would run it:

    <fixloop> fix <project> --offline --dry-run --json --no-memory

from the project folder, with the environment of the user's shell (for a virtualenv outside the
project: VIRTUAL_ENV and PATH as `activate` sets them; for `.venv` inside, nothing). A proposed fix is
applied to the reset, bugged project and judged by the hidden check (checks/<project>_cases.py against
the golden outputs of the original; fixloop never sees it) and the full visible suite.

    python bench/real_projects.py [--only ID ...] [--project NAME ...] [--jobs 1] [--fixloop PATH]
                                  [--json-out FILE] [--validate] [--smoke] [--kill-after S]

--validate checks every bug instead: the original passes the visible suite and the hidden check; the
bugged version fails at least one visible test and the hidden check.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent / "real_projects"
sys.path.insert(0, str(HERE))
from fetch import Project, build, exclusive, load_projects  # noqa: E402
from report import NEXT_STEP, Result, merge, print_result, summarize  # noqa: E402

REPO = HERE.parent.parent
CHECKS = HERE / "checks"
# A src layout, hatchling and generated files, a 1-2 s suite: fixed in about 15 s (build once: 20 s), where
# more-itertools-divide-cmp took 45 s on its 5 s suite.
SMOKE_BUG = "humanize-metric-zero"


@dataclass
class Bug:
    id: str
    project: str
    file: str
    old: str
    new: str
    kind: str
    history: str = ""


def load_bugs() -> list[Bug]:
    return [Bug(**b) for b in tomllib.loads((HERE / "bugs.toml").read_text())["bug"]]


def git(p: Project, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=p.root, capture_output=True, text=True, check=check)


def reset(p: Project) -> None:
    """Back to the commit: tracked files restored, untracked ones removed; ignored files (the generated
    version file, .venv, caches) stay as a user's checkout keeps them. Byte code of the project's own
    files goes, since a one-character bug can keep the source's size and mtime second."""
    git(p, "reset", "-q", "--hard", "HEAD")
    git(p, "clean", "-fdq")
    # hypothesis keeps the failing examples it found and replays them first: one bench run's find would
    # fail the original code's property test in every run after it.
    shutil.rmtree(p.root / ".hypothesis", ignore_errors=True)
    for cache in p.root.rglob("__pycache__"):
        if ".venv" not in cache.relative_to(p.root).parts:
            shutil.rmtree(cache, ignore_errors=True)


def apply_bug(p: Project, bug: Bug) -> None:
    path = p.root / bug.file
    lines = path.read_text().split("\n")
    hits = [i for i, line in enumerate(lines) if line == bug.old]
    if len(hits) != 1:
        raise RuntimeError(f"{bug.id}: the old line occurs {len(hits)} times in {bug.file}, not once")
    lines[hits[0]] = bug.new
    path.write_text("\n".join(lines))
    for cache in path.parent.glob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


FAILED = re.compile(r"^FAILED (\S+)", re.M)  # pytest's -rf summary lines


def pytest(p: Project, extra: list[str] = (), timeout: float = 3600, keep: int = 3) -> tuple[int, float, str]:
    """The project's own test command, in the project, with the user's environment: (rc, seconds, the last
    `keep` lines)."""
    started = time.monotonic()
    try:
        proc = subprocess.run([*p.test_argv(), *extra], cwd=p.root, env=p.env(), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, time.monotonic() - started, "timeout"
    return proc.returncode, time.monotonic() - started, "\n".join(proc.stdout.strip().splitlines()[-keep:])


def hidden_check(p: Project) -> tuple[bool, str]:
    """Run the hidden cases with the project's interpreter, from a folder outside the project."""
    with tempfile.TemporaryDirectory(prefix="hidden-") as tmp:
        try:
            proc = subprocess.run([str(p.python), str(CHECKS / "_hidden.py"), str(CHECKS / f"{p.name}_cases.py"),
                                   str(CHECKS / f"{p.name}_golden.json")], cwd=tmp, env=p.env(),
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return False, "hidden check timed out"
    out = (proc.stdout + proc.stderr).strip().splitlines()
    return proc.returncode == 0, " | ".join(out[-3:])


# ---- validate ---------------------------------------------------------------------------------------

def validate(p: Project, bugs: list[Bug], log) -> bool:
    ok = True
    reset(p)
    rc, secs, tail = pytest(p)
    hidden_ok, hidden_out = hidden_check(p)
    log(f"{p.name}: original suite rc={rc} in {secs:.1f}s ({tail.splitlines()[-1] if tail else ''}); "
        f"hidden {'pass' if hidden_ok else 'FAIL: ' + hidden_out}")
    if rc != 0 or not hidden_ok:
        return False
    for bug in bugs:
        reset(p)
        try:
            apply_bug(p, bug)
        except RuntimeError as e:
            log(f"  {bug.id:34} INVALID: {e}")
            ok = False
            continue
        rc, secs, tail = pytest(p, ["-x", "-q", "-p", "no:cacheprovider"])
        hidden_ok, hidden_out = hidden_check(p)
        good = rc in (1, 2) and not hidden_ok
        ok &= good
        last = tail.splitlines()[-1] if tail else ""
        log(f"  {bug.id:34} {'ok     ' if good else 'INVALID'} visible rc={rc} ({last[:60]}) {secs:5.1f}s; "
            f"hidden {'passes (bug not caught)' if hidden_ok else 'fails'}")
    reset(p)
    return ok


# ---- run fixloop --------------------------------------------------------------------------------------

def fixloop_argv(fixloop: str, p: Project) -> list[str]:
    argv = [fixloop, "fix", str(p.root), "--offline", "--dry-run", "--json", "--no-memory"]
    args = p.fixloop_pytest_args()
    if args:  # the project's own test command needs them: a user would set them once
        argv += ["--set", "pytest_args=" + json.dumps(args)]
    return argv


def run_fixloop(fixloop: str, p: Project, kill_after: float) -> tuple[dict, float, str, str]:
    """(summary or {}, wall seconds, stderr tail, problem)."""
    started = time.monotonic()
    try:
        proc = subprocess.run(fixloop_argv(fixloop, p), cwd=p.root, env=p.env(), capture_output=True, text=True,
                              timeout=kill_after)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return {}, time.monotonic() - started, tail_of(err), f"killed after {kill_after:.0f}s"
    seconds = time.monotonic() - started
    summary: dict = {}
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            summary = json.loads(line)
            break
        except json.JSONDecodeError:
            continue
    problem = "" if summary else f"no JSON summary (exit {proc.returncode})"
    return summary, seconds, tail_of(proc.stderr), problem


def tail_of(text: str, n: int = 6) -> str:
    # The status spinner rewrites one line with carriage returns: keep what was printed last on each line.
    lines = [line.split("\r")[-1].rstrip() for line in text.strip().splitlines()]
    return "\n".join([line for line in lines if line.strip()][-n:])


def judge(p: Project, bug: Bug, diff: str) -> tuple[str, str]:
    """Apply the fix to the reset, bugged project; the hidden check and the full visible suite decide."""
    reset(p)
    apply_bug(p, bug)
    with tempfile.NamedTemporaryFile("w", suffix=".diff", delete=False) as f:
        f.write(diff if diff.endswith("\n") else diff + "\n")
    try:
        applied = git(p, "apply", "--whitespace=nowarn", f.name, check=False)
        if applied.returncode != 0:
            return "error", f"the fix does not apply: {applied.stderr.strip()[:200]}"
    finally:
        os.unlink(f.name)
    for cache in p.root.rglob("__pycache__"):
        if ".venv" not in cache.relative_to(p.root).parts:
            shutil.rmtree(cache, ignore_errors=True)
    hidden_ok, hidden_out = hidden_check(p)
    rc, _, tail = pytest(p, ["-q", "-p", "no:cacheprovider", "-rf"], keep=200)
    if hidden_ok and rc == 0:
        return "correct", ""
    failed = sorted(set(FAILED.findall(tail)))
    if hidden_ok and failed:
        # A project's own flaky test (dateutil's hypothesis properties find a DST-ambiguous time now and
        # then) must not make a fix wrong: the tests that failed with the fix run on the original code.
        reset(p)
        _, _, original = pytest(p, ["-q", "-p", "no:cacheprovider", "-rf", *failed], keep=200)
        if set(failed) <= set(FAILED.findall(original)):
            return "correct", f"the visible failures fail on the original code too: {', '.join(failed)[:200]}"
    return "wrong", f"hidden: {hidden_out[:200]}; visible suite rc={rc} {tail.splitlines()[-1] if tail else ''}"


def bench_one(fixloop: str, p: Project, bug: Bug, kill_after: float | None) -> Result:
    reset(p)
    apply_bug(p, bug)
    rc, before, _ = pytest(p)
    limit = kill_after or max(900.0, 20 * before)
    reset(p)  # fixloop gets the project as the user left it: bug applied, no caches of our pytest run
    apply_bug(p, bug)
    summary, seconds, tail, problem = run_fixloop(fixloop, p, limit)
    status, message = str(summary.get("status", "")), str(summary.get("message", problem))
    steps = [str(step) for step in summary.get("next_steps") or []]
    if steps:  # what fixloop tells the user to do next, printed under its end message
        message += "".join(f"\n    next: {step}" for step in steps)
    candidates = int(summary.get("candidates_evaluated", 0) or 0)
    if problem:
        verdict, detail = "error", problem
    elif status == "fixed" and summary.get("diff"):
        verdict, detail = judge(p, bug, summary["diff"])
        detail = detail or f"{summary.get('operator', '')}: {summary.get('diff', '').count(chr(10))} diff lines"
    elif status == "error":  # fixloop could not run the project's tests, or crashed
        verdict, detail = "error", ""
    else:
        verdict, detail = "not fixed", ""
    baseline, suspects = keep_run_log(p, bug, summary)
    # Plain pytest once more, right after: the machine's speed drifts over a run of minutes, and the ratio's
    # divisor is the mean of the runs on either side of fixloop's.
    reset(p)
    apply_bug(p, bug)
    _, after, _ = pytest(p)
    pytest_seconds = (before + after) / 2
    reset(p)
    return Result(bug.id, p.name, bug.kind, verdict, round(seconds, 1), round(pytest_seconds, 2),
                  round(seconds / max(pytest_seconds, 0.01), 1), candidates, status or "-", message[:3000], tail,
                  verdict == "correct" or bool(steps) or bool(NEXT_STEP.search(message)),
                  detail + ("" if rc in (1, 2) else f" (plain pytest rc={rc})"), baseline, suspects,
                  [round(before, 2), round(after, 2)])


def keep_run_log(p: Project, bug: Bug, summary: dict) -> tuple[str, str]:
    """Move fixloop's run log out of the project (the reset would delete it); return its baseline and suspects."""
    baseline = suspects = ""
    run_dir = Path(summary.get("run_dir") or "")
    if not summary.get("run_dir") or not run_dir.is_dir():
        return baseline, suspects
    for line in (run_dir / "events.jsonl").read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        data = event.get("data", event)
        if event.get("kind") == "baseline" and not baseline:
            baseline = f"{data.get('passed')} passed, {data.get('failed')} failed in {data.get('seconds')} s"
        if event.get("kind") == "localized" and not suspects:
            suspects = ", ".join(list(data.get("suspects") or [])[:5])
    target = REPO / ".cache" / "real_projects" / "runs" / bug.id
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(run_dir, target)
    return baseline, suspects


def main() -> int:
    with exclusive():
        return bench()


def bench() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", default=None, help="bug ids")
    ap.add_argument("--project", nargs="*", default=None, help="project names")
    ap.add_argument("--jobs", type=int, default=1, help="projects benched at once (bugs of one project run in turn)")
    ap.add_argument("--validate", action="store_true", help="check the corpus instead of running fixloop")
    ap.add_argument("--smoke", action="store_true", help=f"one small project, one bug ({SMOKE_BUG})")
    ap.add_argument("--fixloop", default=str(REPO / ".venv" / "bin" / "fixloop"), help="the fixloop executable")
    ap.add_argument("--json-out", default=None)
    ap.add_argument("--kill-after", type=float, default=None,
                    help="seconds before a fixloop run is killed (default: max(900, 20x plain pytest))")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the projects first")
    ap.add_argument("--merge", nargs="*", default=None, metavar="JSON",
                    help="print the results and summary of earlier --json-out files together (a later one wins)")
    ap.add_argument("--markdown", action="store_true", help="with --merge: the results as a Markdown table")
    args = ap.parse_args()
    if args.merge:
        return merge(args.merge, [b.id for b in load_bugs()], args.markdown, args.json_out)

    projects = load_projects()
    bugs = load_bugs()
    if args.smoke:
        args.only = [SMOKE_BUG]
        args.kill_after = args.kill_after or 600.0
    bugs = [b for b in bugs if (not args.only or b.id in args.only) and (not args.project or b.project in args.project)]
    names = [n for n in projects if any(b.project == n for b in bugs)]
    if args.validate and not args.only:
        names = [n for n in projects if not args.project or n in args.project]
    if not names:
        print("no bug selected", file=sys.stderr)
        return 2
    lock = threading.Lock()

    def log(text: str) -> None:
        with lock:
            print(text, flush=True)

    for name in names:
        build(projects[name], args.rebuild, log)
    fixloop = os.path.abspath(args.fixloop)
    if not args.validate:
        version = subprocess.run([fixloop, "version"], capture_output=True, text=True).stdout.strip()
        log(f"{version} ({fixloop}); {len(bugs)} bugs on {len(names)} projects, jobs={args.jobs}")

    def one_project(name: str) -> list[Result] | bool:
        mine = [b for b in bugs if b.project == name]
        if args.validate:
            return validate(projects[name], mine, log)
        out = []
        for bug in mine:
            r = bench_one(fixloop, projects[name], bug, args.kill_after)
            with lock:
                print_result(r)
            out.append(r)
        return out

    started = time.monotonic()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        outcomes = list(pool.map(one_project, names))
    if args.validate:
        ok = all(outcomes)
        print(f"\nvalidation {'passed' if ok else 'FAILED'} ({time.monotonic() - started:.0f}s)")
        return 0 if ok else 1
    results = [r for rs in outcomes for r in rs]  # type: ignore[union-attr]
    summary = summarize(results)
    print(f"total wall time {time.monotonic() - started:.0f}s")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"fixloop": fixloop, "summary": summary,
                                                   "results": [asdict(r) for r in results]}, indent=1) + "\n")
    if args.smoke and any(r.verdict == "error" for r in results):
        return 1  # the run itself failed (no JSON summary, killed, fixloop's own error): the bench has rotted
    return 0


if __name__ == "__main__":
    sys.exit(main())

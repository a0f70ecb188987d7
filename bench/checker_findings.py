"""fixloop on lint findings in real projects: `fixloop fix --check ruff`, offline, no memory, defaults.

The projects are the real-project corpus's (bench/real_projects/, built by its fetch.py). Each finding of
bench/real_projects/findings.toml is a one-line change of the original code that ruff reports (an unused or
repeated import, an undefined name, a comparison with None or True, `not x in y`, an f-string without a
placeholder, a local never used, ...), in code that the project's suite may or may not run. The project
adopts ruff's error rules for the bench (a `ruff.toml` selecting F, E7 and E9 beside its pyproject; these six
projects have no such finding of their own) and has ruff in its own virtualenv (installed once by this
script, as a developer who runs ruff has it). fixloop runs as a user would:

    <fixloop> fix <project> --check ruff --offline --dry-run --json --no-memory

A proposed fix is applied to the reset project with the finding and judged: ruff must report no finding, and
the hidden check (checks/<project>_cases.py against the original's golden outputs) and the whole visible suite
must pass, else it is wrong. Passing those, it is correct when the file is the original again, and `differs`
otherwise: much of this code is run by no test (a Windows branch, an error path), so only the original text
proves the behaviour unchanged; the diff of each is printed, for a person to judge.
The time is compared with one run of ruff plus one plain pytest of the project, measured side by side.

    python bench/checker_findings.py [--only ID ...] [--project NAME ...] [--json-out FILE] [--validate] [--smoke]

--smoke: one finding in one small project (humanize: src layout, hatchling, a 1-2 s suite).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_projects as rp  # noqa: E402

RUFF_TOML = '[lint]\nselect = ["F", "E7", "E9"]\n'
SMOKE = "humanize-time-unused-import"


@dataclass
class Finding:
    id: str
    project: str
    file: str
    old: str
    new: str
    kind: str  # the rule ruff reports, and what it is


@dataclass
class Outcome:
    id: str
    project: str
    kind: str
    verdict: str  # correct (the original again) | differs (passes every check, another text) | wrong | not fixed | error
    restores: bool  # the fixed file is the original again
    fixloop_seconds: float
    plain_seconds: float  # one ruff check plus one plain pytest of the project
    ratio: float
    candidates: int
    source: str  # the proposer kind that made the fix (checker: ruff's own fix; search: the offline engine)
    message: str
    diff: str = ""  # the fix, when it is not the original


def load_findings() -> list[Finding]:
    return [Finding(**f) for f in tomllib.loads((rp.HERE / "findings.toml").read_text())["finding"]]


def ensure_ruff(p: rp.Project) -> None:
    """ruff in the project's own virtualenv (the bench is the user here; fixloop never installs it)."""
    probe = subprocess.run([str(p.python), "-m", "ruff", "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        subprocess.run([str(p.python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "ruff"],
                       check=True, env=p.env())


def prepare(p: rp.Project, f: Finding) -> None:
    rp.reset(p)
    rp.apply_bug(p, f)  # type: ignore[arg-type]  # the same fields: file, old, new, id
    (p.root / "ruff.toml").write_text(RUFF_TOML)


def ruff_findings(p: rp.Project) -> list[str]:
    proc = subprocess.run([str(p.python), "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                           "--exit-zero", "."], cwd=p.root, env=p.env(), capture_output=True, text=True, timeout=120)
    return [line for line in proc.stdout.splitlines() if ":" in line and not line.startswith("Found")]


def own_findings(p: rp.Project) -> list[str]:
    return [line for line in ruff_findings(p) if not line.split(":", 1)[0].startswith(("tests/", "test/", "testing/"))]


def validate(p: rp.Project, findings: list[Finding]) -> bool:
    ok = True
    rp.reset(p)
    (p.root / "ruff.toml").write_text(RUFF_TOML)
    clean = own_findings(p)
    print(f"{p.name}: original has {len(clean)} finding(s) outside its tests {clean[:3]}")
    ok &= not clean
    for f in findings:
        prepare(p, f)
        found = own_findings(p)
        rc, _, _ = rp.pytest(p, ["-q", "-p", "no:cacheprovider"])
        good = len(found) >= 1 and all(f.file in line for line in found)
        ok &= good
        print(f"  {f.id:36} {'ok     ' if good else 'INVALID'} ruff: {found[:2]}; visible suite rc={rc}")
    rp.reset(p)
    return ok


def judge(p: rp.Project, f: Finding, diff: str) -> tuple[str, bool, str]:
    prepare(p, f)
    path = p.root / f.file
    with open(p.root / ".fix.diff", "w") as out:
        out.write(diff if diff.endswith("\n") else diff + "\n")
    applied = rp.git(p, "apply", "--whitespace=nowarn", ".fix.diff", check=False)
    os.unlink(p.root / ".fix.diff")
    if applied.returncode != 0:
        return "error", False, f"the fix does not apply: {applied.stderr.strip()[:200]}"
    after = path.read_text()
    left = own_findings(p)
    hidden_ok, hidden_out = rp.hidden_check(p)
    rc, _, tail = rp.pytest(p, ["-q", "-p", "no:cacheprovider"])
    rp.reset(p)
    restores = after == path.read_text()
    if not left and hidden_ok and rc == 0:
        return ("correct" if restores else "differs"), restores, ""
    return "wrong", restores, f"ruff: {left[:2]}; hidden: {hidden_out[:120]}; visible rc={rc} {tail[-80:]}"


def bench_one(fixloop: str, p: rp.Project, f: Finding) -> Outcome:
    prepare(p, f)
    t0 = time.monotonic()
    ruff_findings(p)
    _, pytest_seconds, _ = rp.pytest(p)
    plain = time.monotonic() - t0
    prepare(p, f)
    argv = rp.fixloop_argv(fixloop, p) + ["--check", "ruff"]
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=p.root, env=p.env(), capture_output=True, text=True, timeout=max(600, 20 * plain))
    seconds = time.monotonic() - started
    try:
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        summary = {}
    status = str(summary.get("status", ""))
    verdict, restores, detail = "not fixed", False, ""
    if not summary:
        verdict, detail = "error", f"no JSON summary (exit {proc.returncode}): {rp.tail_of(proc.stderr)}"
    elif status == "fixed" and summary.get("diff"):
        verdict, restores, detail = judge(p, f, summary["diff"])
    elif status == "error":
        verdict = "error"
    rp.reset(p)
    message = detail or str(summary.get("message", ""))[:300]
    return Outcome(f.id, p.name, f.kind, verdict, restores, round(seconds, 1), round(plain, 2),
                   round(seconds / max(plain, 0.01), 1), int(summary.get("candidates_evaluated", 0) or 0),
                   str(summary.get("source", "")), message, "" if restores else str(summary.get("diff", ""))[:600])


def main() -> int:
    with rp.exclusive():
        return bench()


def bench() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", default=None, help="finding ids")
    ap.add_argument("--project", nargs="*", default=None, help="project names")
    ap.add_argument("--validate", action="store_true", help="check the corpus instead of running fixloop")
    ap.add_argument("--fixloop", default=str(rp.REPO / ".venv" / "bin" / "fixloop"))
    ap.add_argument("--json-out", default=None)
    ap.add_argument("--smoke", action="store_true", help=f"one finding in one small project ({SMOKE})")
    args = ap.parse_args()
    if args.smoke:
        args.only = [SMOKE]
    projects = rp.load_projects()
    findings = [f for f in load_findings() if (not args.only or f.id in args.only)
                and (not args.project or f.project in args.project)]
    names = list(dict.fromkeys(f.project for f in findings))
    for name in names:
        rp.build(projects[name], False, print)
        ensure_ruff(projects[name])
    if args.validate:
        ok = all([validate(projects[n], [f for f in findings if f.project == n]) for n in names])
        print(f"\nvalidation {'passed' if ok else 'FAILED'}")
        return 0 if ok else 1
    fixloop = os.path.abspath(args.fixloop)
    started, results = time.monotonic(), []
    for f in findings:
        r = bench_one(fixloop, projects[f.project], f)
        results.append(r)
        print(f"{r.id:36} {r.verdict:9} {'restores' if r.restores else '        '} fixloop {r.fixloop_seconds:6.1f}s "
              f"plain {r.plain_seconds:5.2f}s x{r.ratio:<5} {r.candidates:3d} cand  {r.source or '-':8} "
              f"{'' if r.verdict == 'correct' else r.message[:160]}", flush=True)
        if r.verdict == "differs":
            print("    " + r.diff.replace("\n", "\n    "), flush=True)
    correct = [r for r in results if r.verdict == "correct"]
    fixed = [r for r in results if r.verdict in ("correct", "differs")]
    summary = {"findings": len(results), "correct": len(correct), "differs": len(fixed) - len(correct),
               "wrong": sum(r.verdict == "wrong" for r in results),
               "not_fixed": sum(r.verdict == "not fixed" for r in results),
               "errors": sum(r.verdict == "error" for r in results),
               "by_checker_fix": sum(r.source == "checker" for r in fixed),
               "median_seconds_fixed": statistics.median([r.fixloop_seconds for r in fixed]) if fixed else None,
               "median_ratio_fixed": statistics.median([r.ratio for r in fixed]) if fixed else None}
    print(json.dumps(summary), f"\ntotal wall time {time.monotonic() - started:.0f}s")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"summary": summary, "results": [asdict(r) for r in results]},
                                                  indent=1) + "\n")
    return 1 if args.smoke and any(r.verdict == "error" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

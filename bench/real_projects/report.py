"""The bench's report: one result per bug, the per-bug lines, the summary the issue asks for, merging runs."""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

# Words of the end message (the summary's "message", what the CLI prints last) that tell the user what to do next (an option, a setting, a place to look).
NEXT_STEP = re.compile(r"--[a-z]|\bset\b|\btry\b|\braise\b|\bincrease\b|\badd\b|\bmodel\b|\bkey\b|\bhint\b|"
                       r"\brun\b.*\bwith\b|\bpass\b.*--", re.IGNORECASE)


@dataclass
class Result:
    bug: str
    project: str
    kind: str
    verdict: str  # correct | wrong | not fixed | error (fixloop ended in error, crashed or was killed)
    fixloop_seconds: float
    pytest_seconds: float
    ratio: float
    candidates: int
    status: str
    message: str
    tail: str  # the last lines fixloop wrote on stderr
    next_step: bool
    detail: str = ""
    baseline: str = ""  # what fixloop's baseline found
    suspects: str = ""  # the first suspects fixloop localized
    pytest_runs: list[float] = field(default_factory=list)  # plain pytest just before and just after fixloop


def print_result(r: Result) -> None:
    print(f"{r.bug:34} {r.verdict:9} fixloop {r.fixloop_seconds:7.1f}s  pytest {r.pytest_seconds:6.2f}s  "
          f"x{r.ratio:<6} {r.candidates:4d} cand  {r.status}", flush=True)
    if r.verdict != "correct":
        print(f"    baseline: {r.baseline or '-'}; suspects: {r.suspects or '-'}")
        print(f"    message: {r.message[:300]}")
        if r.detail:
            print(f"    detail: {r.detail}")
        for line in r.tail.splitlines()[-4:]:
            print(f"    | {line[:200]}")
        if r.verdict != "wrong":
            print(f"    names a next step: {'yes' if r.next_step else 'NO'}", flush=True)


def print_markdown_row(r: Result) -> None:
    ended = "fixed" if r.verdict == "correct" else (r.message.splitlines() or ["-"])[0][:90]
    print(f"| {r.bug} | {r.kind} | {r.verdict} | {r.fixloop_seconds:.0f} | {r.pytest_seconds:.1f} | {r.ratio} | "
          f"{r.candidates} | {ended} |")


def summarize(results: list[Result]) -> dict:
    n = len(results)
    correct = [r for r in results if r.verdict == "correct"]
    failed = [r for r in results if r.verdict in ("not fixed", "error")]
    summary = {
        "bugs": n, "correct": len(correct), "correct_pct": round(100 * len(correct) / n, 1) if n else 0.0,
        "wrong": sum(r.verdict == "wrong" for r in results), "not_fixed": sum(r.verdict == "not fixed" for r in results),
        "errors": sum(r.verdict == "error" for r in results),
        "median_ratio_fixed": round(statistics.median(r.ratio for r in correct), 1) if correct else None,
        "max_ratio_failed": max((r.ratio for r in failed), default=None),
        "failed_without_next_step": [r.bug for r in failed if not r.next_step],
    }
    print()
    print(f"fixed correctly: {summary['correct']}/{n} ({summary['correct_pct']}%)   wrong fixes: {summary['wrong']}   "
          f"not fixed: {summary['not_fixed']}   errors: {summary['errors']}")
    print(f"median fixloop/pytest of fixed runs: {summary['median_ratio_fixed']}   "
          f"largest ratio of failed runs: {summary['max_ratio_failed']}")
    print(f"failed runs whose end message names no next step: {len(summary['failed_without_next_step'])}"
          + (f" ({', '.join(summary['failed_without_next_step'])})" if summary["failed_without_next_step"] else ""))
    return summary


def merge(paths: list[str], order: list[str], markdown: bool, json_out: str | None) -> int:
    """Print the results and summary of earlier --json-out files together (a later file wins for a bug)."""
    merged: dict[str, Result] = {}
    for path in paths:
        for row in json.loads(Path(path).read_text())["results"]:
            r = Result(**row)
            # Rows of earlier versions of this script: judged again by today's rules.
            if r.verdict == "not fixed" and r.status == "error":
                r.verdict = "error"
            r.next_step = r.verdict == "correct" or bool(NEXT_STEP.search(r.message))
            merged[r.bug] = r
    results = sorted(merged.values(), key=lambda r: order.index(r.bug) if r.bug in order else len(order))
    if markdown:
        print("| bug | kind | verdict | fixloop s | pytest s | ratio | candidates | end message |")
        print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print_markdown_row(r) if markdown else print_result(r)
    summary = summarize(results)
    if json_out:
        Path(json_out).write_text(json.dumps({"merged": paths, "summary": summary,
                                               "results": [asdict(r) for r in results]}, indent=1) + "\n")
    return 0

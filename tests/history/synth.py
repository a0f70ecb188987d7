"""Synthetic run folders in the format the run log writes (for fast KPI tests and the stats benchmark)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Cand:
    proposer: str = "engine"
    operator: str = "compare_op"
    status: str = "failed"  # failed | plausible | unsafe | guard
    rules: tuple[str, ...] = ()  # safety codes when unsafe
    cpu: float = 0.5
    peak: float = 40.0


@dataclass
class Spec:
    run_id: str
    status: str = "fixed"
    cands: list[Cand] = field(default_factory=list)
    exc: str = "AssertionError"
    seconds: float = 10.0
    cost: float = 0.0
    tokens: int = 0
    calls: int = 0
    decision: bool | None = None  # accepted / rejected / none
    lookup: float | None = 0.004
    schema: int = 2
    target: str = ""
    strategy: str = ""  # the run's strategy, in the started event (empty: a run logged before strategies)


def winner(spec: Spec) -> Cand | None:
    return next((c for c in spec.cands if c.status == "plausible"), None) if spec.status == "fixed" else None


def events(spec: Spec) -> list[dict[str, Any]]:
    rid = spec.run_id
    t = 1000.0
    out: list[dict[str, Any]] = []

    def ev(kind: str, phase: str, cand: int | None = None, **data: Any) -> None:
        out.append({"time": t, "run_id": rid, "kind": kind, "phase": phase, "candidate": cand, **data})

    started: dict[str, Any] = {"workspace": "/p", "scope": "node" if spec.target else "all", "target": spec.target,
                               "seed": 1}
    if spec.schema >= 2:
        started["schema"] = spec.schema
    if spec.strategy:
        started["strategy"] = spec.strategy
    ev("started", "start", **started)
    t += 1
    ev("baseline", "baseline", passed=3, failed=1, errors=0, timed_out=False, problem="", seconds=0.5,
       signature=f"tests/test_a.py::test_x {spec.exc}: assert <num> == <num> @ a.py:f")
    if spec.lookup is not None:
        ev("retrieved", "retrieve", lessons=1, **({"seconds": spec.lookup} if spec.schema >= 2 else {}))
    ev("localized", "localize", suspects=["a.py:3"], note="")
    per_call = (spec.tokens // spec.calls, spec.cost / spec.calls) if spec.calls else (0, 0.0)
    for i in range(spec.calls):
        ev("model_call", "propose", proposer="llm", purpose="propose", model="claude-x", tokens=per_call[0],
           input_tokens=per_call[0] - 10, output_tokens=10, cache_read_tokens=0, cache_write_tokens=0,
           cost_usd=per_call[1], seconds=1.5, tool_calls=2)
    for i, c in enumerate(spec.cands, 1):
        t += 1
        ev("candidate", "propose", i, proposer=c.proposer, operator=c.operator, summary="s", diff="", iteration=0,
           tokens=0)
        if c.status == "guard":
            ev("checked", "check", i, ok=False, reason="edits a test file")
            continue
        if c.status == "unsafe":
            ev("checked", "check", i, ok=False, reason="unsafe", findings=[f"{r} a.py:1 bad" for r in c.rules])
            continue
        ev("checked", "check", i, ok=True, reason="", findings=[])
        tested = {"status": c.status, "iteration": 0, "tokens": 0, "passed": 4, "failed": 0, "errors": 0,
                  "timed_out": False, "problem": "", "seconds": 0.3}
        if spec.schema >= 2:
            tested.update(proposer=c.proposer, operator=c.operator, cpu_seconds=c.cpu, peak_mb=c.peak)
        ev("tested", "run", i, **tested)
    t = 1000.0 + spec.seconds
    ev("finished", "done", status=spec.status, message="m", diff="")
    return out


def summary(spec: Spec) -> dict[str, Any]:
    w = winner(spec)
    ran = [c for c in spec.cands if c.status in ("failed", "plausible")]
    out = {"status": spec.status, "message": "m", "run_id": spec.run_id, "files_changed": ["a.py"] if w else [],
           "diff": "", "proposer": w.proposer if w else "", "operator": w.operator if w else "",
           "iterations": spec.calls, "candidates_evaluated": len(spec.cands), "test_runs": 2 + len(ran) * 2,
           "llm_calls": spec.calls, "tokens": spec.tokens, "cost_usd": spec.cost, "wall_seconds": spec.seconds}
    if spec.schema >= 2:
        out["schema"] = 2
    return out


def write(project: Path, spec: Spec) -> Path:
    d = project / ".fixloop" / "runs" / spec.run_id
    d.mkdir(parents=True, exist_ok=True)
    (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events(spec)))
    (d / "summary.json").write_text(json.dumps(summary(spec)))
    if spec.decision is not None:
        (d / "decisions.jsonl").write_text(json.dumps({"run_id": spec.run_id, "hunk": "a.py#0",
                                                       "accepted": spec.decision}) + "\n")
    return d


def run_id(day: int, n: int) -> str:
    return f"202611{day:02d}-{n // 3600 % 24:02d}{n // 60 % 60:02d}{n % 60:02d}-{n:06x}"[:22]


def bulk(project: Path, count: int, start: int = 0) -> None:
    """`count` varied runs, cheaply (the benchmark's 10,000)."""
    for n in range(start, start + count):
        kind = n % 5
        cands = [Cand(operator=f"op{n % 7}")] * (n % 4) + [Cand(operator="compare_op", status="plausible")]
        spec = Spec(run_id(1 + n % 28, n), status="gave_up" if kind == 4 else "fixed",
                    cands=cands if kind != 4 else cands[:-1] + [Cand(status="unsafe", rules=("FL-S002",))],
                    exc=("AssertionError", "TypeError", "KeyError")[n % 3], seconds=5.0 + n % 20,
                    cost=0.01 * (n % 3 == 0), tokens=1000 * (n % 3 == 0), calls=int(n % 3 == 0),
                    decision=(None, True, False)[n % 3])
        write(project, spec)


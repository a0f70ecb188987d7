"""One run's files -> one flat record (a JSON-able dict), the unit of the history, the cache and the KPIs.

Pure: bytes in, a dict out. The files are untrusted: every field is type-checked and bounded, bad lines are
counted, never raised. The summary is the authority for the run's counters; a run without one (killed,
truncated) is rebuilt from its events as far as they go.
"""

from __future__ import annotations

import json
import math
import re
import time
from typing import Any, Iterable, Mapping

KNOWN_STATUS = ("fixed", "gave_up", "limits", "cancelled", "error", "nothing_to_fix", "flaky")
ATTEMPTED = ("fixed", "gave_up", "limits", "error")  # runs that had something to fix and tried
_RULE = re.compile(r"^(FL-S\d{3}|B\d{3})\b")
_EXC = re.compile(r"^[A-Za-z_][\w.]*$")
MAX_TEXT = 300


def _text(value: Any, limit: int = MAX_TEXT) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0.0
    return float(min(max(value, 0.0), 1e12))


def _int(value: Any) -> int:
    return int(_num(value))


def parse_lines(data: bytes | None) -> tuple[list[dict[str, Any]], int]:
    """JSON objects, one per line; the count of lines that were not one (a torn last line included)."""
    if not data:
        return [], 0
    out: list[dict[str, Any]] = []
    bad = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            bad += 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        else:
            bad += 1
    return out, bad


def parse_summary(data: bytes | None) -> tuple[dict[str, Any] | None, str]:
    if data is None:
        return None, ""
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        return None, "summary.json is not valid JSON (torn or corrupt): rebuilt from the events"
    if not isinstance(obj, dict):
        return None, "summary.json is not a JSON object: rebuilt from the events"
    return obj, ""


def error_class(signature: str) -> str:
    """The exception type of a run's first failing test, from the baseline's failure signature
    ("tests/t.py::test_x AssertionError: ... @ m.py:f | ..."), or what kind of failure it was."""
    if not signature:
        return "unknown"
    if signature.startswith("problem:"):
        return "run problem"
    if signature.startswith("collection:"):
        return "collection error"
    if signature in ("timeout", "ok"):
        return signature
    first = signature.split(" | ", 1)[0]
    _, _, rest = first.partition(" ")
    name = rest.split(":", 1)[0].strip()
    return name[:80] if _EXC.match(name) else "unknown"


def started_at(run_id: str, fallback: float) -> float:
    """When the run started, from its id (`YYYYmmdd-HHMMSS-xxxxxx`, local time), else `fallback` (a file time)."""
    try:
        return time.mktime(time.strptime(run_id[:15], "%Y%m%d-%H%M%S"))
    except (ValueError, OverflowError):
        return fallback


def decision(rows: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """Accepted and rejected hunks: the last word on each hunk counts."""
    last: dict[str, bool] = {}
    for row in rows:
        if isinstance(row.get("accepted"), bool):
            last[_text(row.get("hunk"), 200) or "all"] = row["accepted"]
    accepted = sum(1 for v in last.values() if v)
    return accepted, len(last) - accepted


def build(run_id: str, project: str, files: Mapping[str, bytes], problems: list[str], mtime: float) -> dict[str, Any]:
    summary, summary_problem = parse_summary(files.get("summary.json"))
    events, bad_events = parse_lines(files.get("events.jsonl"))
    decisions, bad_decisions = parse_lines(files.get("decisions.jsonl"))
    notes = list(problems)
    if summary_problem:
        notes.append(summary_problem)
    if bad_events:
        notes.append(f"events.jsonl: {bad_events} unreadable line(s) skipped")
    if bad_decisions:
        notes.append(f"decisions.jsonl: {bad_decisions} unreadable line(s) skipped")
    rec = from_events(events)
    s = summary or {}
    status = _text(s.get("status")) or rec.pop("finished_status", "") or "incomplete"
    rec.pop("finished_status", None)
    if status not in KNOWN_STATUS:
        status = "incomplete"
    if summary is None and files.get("summary.json") is None and status == "incomplete":
        notes.append("no summary.json (the run did not finish)")
    accepted, rejected = decision(decisions)
    rec.update({
        "run_id": run_id, "project": project, "started": started_at(run_id, mtime), "status": status,
        "message": _text(s.get("message")) or rec.get("message", ""),
        "proposer": _text(s.get("proposer"), 40) or rec["proposer"], "operator": _text(s.get("operator"), 80) or rec["operator"],
        "candidates": _int(s["candidates_evaluated"]) if "candidates_evaluated" in s else rec["candidates"],
        "iterations": _int(s.get("iterations", rec["iterations"])),
        "test_runs": _int(s.get("test_runs", rec["test_runs"])),
        "llm_calls": _int(s["llm_calls"]) if "llm_calls" in s else rec["llm_calls"],
        "tokens": _int(s["tokens"]) if "tokens" in s else rec["tokens"],
        "cost_usd": _num(s["cost_usd"]) if "cost_usd" in s else rec["cost_usd"],
        "seconds": _num(s.get("wall_seconds", rec["seconds"])),
        "files_changed": [_text(p, 200) for p in s.get("files_changed", [])[:50]] if isinstance(s.get("files_changed"), list) else [],
        "accepted_hunks": accepted, "rejected_hunks": rejected,
        "decision": "accepted" if accepted and not rejected else "rejected" if rejected and not accepted
                    else "partial" if accepted else "",
        "schema": _int(s.get("schema") or rec["schema"] or 1),
        "strategy": _text(s.get("strategy"), 40) or rec["strategy"],
        "problems": notes[:10],
    })
    rec["replayed"] = status == "fixed" and rec["proposer"] == "memory"
    if status != "fixed":
        rec["first_try"] = False
    return rec


def from_events(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The counters and telemetry the events tell: candidates, refusals by rule, model calls, CPU, memory."""
    rec: dict[str, Any] = {"target": "", "scope": "all", "error_class": "unknown", "proposer": "", "operator": "",
                           "candidates": 0, "iterations": 0, "test_runs": 0, "llm_calls": 0, "tokens": 0,
                           "cost_usd": 0.0, "seconds": 0.0, "schema": 0, "first_try": False, "unsafe_rules": {},
                           "guard_refusals": 0, "unsafe_candidates": 0, "unsafe_ran": 0, "cpu_seconds": 0.0, "peak_mb": 0.0,
                           "lookup_seconds": None, "model_calls": [], "tested": [], "phases": [], "message": "", "strategy": ""}
    refused: set[int] = set()
    first_tested = True
    t0: float | None = None
    for e in events:
        kind, when = _text(e.get("kind"), 40), _num(e.get("time"))
        t0 = when if t0 is None else t0
        index = e.get("candidate") if isinstance(e.get("candidate"), int) else None
        if kind in ("started", "baseline", "retrieved", "localized", "breaker", "finished") and len(rec["phases"]) < 50:
            rec["phases"].append([round(when - t0, 3), kind, _phase_text(kind, e)])
        if kind == "started":
            rec["schema"] = _int(e.get("schema")) or 1
            rec["target"], rec["scope"] = _text(e.get("target")), _text(e.get("scope"), 20) or "all"
            rec["strategy"] = _text(e.get("strategy"), 40)  # schema 2 and earlier: chosen before the run
        elif kind == "strategy":
            rec["strategy"] = _text(e.get("strategy"), 40)
        elif kind == "baseline":
            rec["error_class"] = error_class(_text(e.get("signature"), 2000))
        elif kind == "retrieved" and "seconds" in e:
            rec["lookup_seconds"] = _num(e.get("seconds"))
        elif kind == "candidate":
            rec["candidates"] += 1
            rec["iterations"] = max(rec["iterations"], _int(e.get("iteration")))
        elif kind == "checked" and e.get("ok") is False and index is not None:
            refused.add(index)
            findings = e.get("findings") if isinstance(e.get("findings"), list) else []
            codes = {m.group(1) for f in findings[:50] if isinstance(f, str) and (m := _RULE.match(f))}
            for code in codes:
                rec["unsafe_rules"][code] = rec["unsafe_rules"].get(code, 0) + 1
            rec["unsafe_candidates" if codes else "guard_refusals"] += 1
        elif kind == "tested":
            status = _text(e.get("status"), 20)
            if first_tested:
                rec["first_try"], first_tested = status == "plausible", False
            rec["unsafe_ran"] += 1 if index in refused else 0
            rec["cpu_seconds"] += _num(e.get("cpu_seconds"))
            rec["peak_mb"] = max(rec["peak_mb"], _num(e.get("peak_mb")))
            if len(rec["tested"]) < 500:
                rec["tested"].append([index or 0, _text(e.get("proposer"), 40), _text(e.get("operator"), 80), status,
                                      _num(e.get("cpu_seconds")), _num(e.get("peak_mb"))])
        elif kind == "model_call":
            rec["llm_calls"] += 1
            rec["tokens"] += _int(e.get("tokens"))
            rec["cost_usd"] += _num(e.get("cost_usd"))
            if len(rec["model_calls"]) < 200:
                rec["model_calls"].append({k: (_text(e.get(k), 80) if k in ("model", "purpose") else _num(e.get(k)))
                                           for k in ("model", "purpose", "input_tokens", "output_tokens",
                                                     "cache_read_tokens", "cache_write_tokens", "cost_usd",
                                                     "seconds", "tool_calls")})
        elif kind == "finished":
            rec["finished_status"] = _text(e.get("status"), 20)
            rec["message"] = _text(e.get("message"))
            rec["seconds"] = max(0.0, when - (t0 or when))
    rec["test_runs"] = rec["test_runs"] or sum(1 for e in events if e.get("kind") in ("baseline", "tested"))
    return rec


def _phase_text(kind: str, e: Mapping[str, Any]) -> str:
    if kind == "baseline":
        return f"{_int(e.get('passed'))} passed, {_int(e.get('failed'))} failed"
    if kind == "retrieved":
        return f"{_int(e.get('lessons'))} lesson(s) from memory"
    if kind == "localized":
        suspects = e.get("suspects") if isinstance(e.get("suspects"), list) else []
        return ", ".join(_text(s, 80) for s in suspects[:3])
    if kind in ("finished", "breaker"):
        return f"{_text(e.get('status'), 20)} {_text(e.get('message'), 200)}".strip()
    return _text(e.get("target"), 200)

"""The glass box: every run leaves events.jsonl and summary.json under .fixloop/runs/<id>/."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from .core.model import Event, Outcome
from .core.patch import unified_diff


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _jsonable(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "value") and isinstance(getattr(value, "value"), str):
        return value.value
    return value


def summary_of(outcome: Outcome, run_dir: Path | None) -> dict[str, Any]:
    """The run's outcome as JSON. These key names are stable: scripts and editors read them."""
    usage = outcome.usage
    return {
        "status": outcome.status.value,
        "message": outcome.message,
        "run_id": outcome.run_id,
        "files_changed": list(outcome.patch.paths) if outcome.patch else [],
        "diff": unified_diff(outcome.patch) if outcome.patch else "",
        "proposer": outcome.patch.proposer if outcome.patch else "",
        "operator": outcome.patch.operator if outcome.patch else "",
        "iterations": outcome.iterations,
        "candidates_evaluated": outcome.candidates_evaluated,
        "plausible_fixes": outcome.plausible,
        "test_runs": outcome.test_runs,
        "llm_calls": usage.llm_calls,
        "tokens": usage.tokens,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "cost_usd": round(usage.cost_usd, 6),
        "wall_seconds": round(outcome.durations.get("total", 0.0), 3),
        "durations": {k: round(v, 3) for k, v in outcome.durations.items()},
        "flaky": list(outcome.flaky),
        "failing_before": [r.nodeid for r in outcome.baseline.failed] if outcome.baseline else [],
        "run_dir": str(run_dir) if run_dir else "",
    }


class RunLog:
    def __init__(self, workspace: Path, run_id: str) -> None:
        self.dir = self._make_dir(workspace, run_id)
        self._events = open(self.dir / "events.jsonl", "a", encoding="utf-8")

    @staticmethod
    def _make_dir(workspace: Path, run_id: str) -> Path:
        try:
            top = workspace / ".fixloop"
            top.mkdir(exist_ok=True)
            ignore = top / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")
            run_dir = top / "runs" / run_id
            run_dir.mkdir(parents=True)
            return run_dir
        except OSError:
            # A read-only or full workspace still gets a glass box, just elsewhere.
            return Path(tempfile.mkdtemp(prefix=f"fixloop-run-{run_id}-"))

    def event(self, event: Event) -> None:
        record = {"time": event.time, "run_id": event.run_id, "kind": event.kind, "phase": event.phase,
                  "candidate": event.candidate, **_jsonable(dict(event.data))}
        try:
            self._events.write(json.dumps(record, default=str) + "\n")
            self._events.flush()
        except OSError:
            pass

    def finish(self, outcome: Outcome) -> dict[str, Any]:
        summary = summary_of(outcome, self.dir)
        try:
            tmp = self.dir / "summary.json.tmp"
            tmp.write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8", errors="surrogateescape")
            os.replace(tmp, self.dir / "summary.json")
            if outcome.patch:
                (self.dir / "fix.diff").write_bytes(summary["diff"].encode("utf-8", "surrogateescape"))
        except (OSError, ValueError):
            pass
        self._events.close()
        return summary

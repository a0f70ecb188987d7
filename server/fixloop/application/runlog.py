"""The glass box: every run leaves events.jsonl and summary.json under .fixloop/runs/<id>/."""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from fixloop.application.result import RunResult
from fixloop.core.model import Event
from fixloop.kit.fdwalk import DIR_FLAGS, write_all
from fixloop.kit.rundir import RUNS, TOP, LinkedRunLog, append_file, create_file, make_run_dir, open_run_dir, replace_file

log = logging.getLogger("fixloop.application.runlog")


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
    if isinstance(value, enum.Enum) and isinstance(value.value, str):  # Status, and enums like it
        return value.value
    return value


class RunLog:
    """`events.jsonl`, `summary.json` and `fix.diff` of one run, written through a directory fd.

    The folder is `.fixloop/runs/<id>` in the workspace; when that cannot be written (read-only, full,
    or a link the project planted there) the log goes to a private temporary folder instead and
    `notice` says why and where, for the user."""

    def __init__(self, workspace: Path, run_id: str) -> None:
        self.notice = ""
        self.dir, self._dir_fd = self._make_dir(workspace, run_id)
        self._events: int | None = None
        try:
            self._events = create_file(self._dir_fd, "events.jsonl", append=True)
        except OSError as e:
            log.warning("cannot write the run log's events in %s: %s", self.dir, e)

    def _make_dir(self, workspace: Path, run_id: str) -> tuple[Path, int]:
        try:
            return workspace / TOP / RUNS / run_id, make_run_dir(workspace, run_id)
        except (OSError, ValueError) as e:
            reason = str(e) if isinstance(e, LinkedRunLog) else f"cannot write {workspace / TOP / RUNS}: {e.strerror or e}"
        # A read-only or full workspace, or a planted link, still gets a glass box, just elsewhere.
        private = Path(tempfile.mkdtemp(prefix=f"fixloop-run-{run_id}-"))
        self.notice = f"{reason}; this run's log is in {private}"
        log.warning("%s", self.notice)
        return private, os.open(private, DIR_FLAGS)

    def event(self, event: Event) -> None:
        if self._events is None:
            return
        record = {"time": event.time, "run_id": event.run_id, "kind": event.kind, "phase": event.phase,
                  "candidate": event.candidate, **_jsonable(dict(event.data))}
        try:
            write_all(self._events, (json.dumps(record, default=str) + "\n").encode("utf-8", "surrogateescape"))
        except (OSError, ValueError):
            pass

    def finish(self, result: RunResult) -> RunResult:
        """Write summary.json and fix.diff; the result, placed in this log's folder."""
        result = dataclasses.replace(result, run_dir=str(self.dir), run_log_notice=self.notice)
        self.write(result)
        self.close()
        return result

    def write(self, result: RunResult) -> None:
        """summary.json and (with a fix) fix.diff, each replaced whole."""
        if self._dir_fd < 0:
            return
        try:
            replace_file(self._dir_fd, "summary.json",
                         json.dumps(result.as_json(), indent=2, default=str).encode("utf-8", "surrogateescape"))
            if result.outcome.patch:
                replace_file(self._dir_fd, "fix.diff", result.diff.encode("utf-8", "surrogateescape"))
        except (OSError, ValueError) as e:
            log.warning("cannot write the run's summary in %s: %s", self.dir, e)

    def close(self) -> None:
        for fd in (self._events, self._dir_fd):
            if fd is not None and fd >= 0:
                os.close(fd)
        self._events, self._dir_fd = None, -1


def record_decision(workspace: Path, run_id: str, record: dict[str, Any]) -> bool:
    """Append a review decision to `.fixloop/runs/<run_id>/decisions.jsonl`, never through a link.
    False when the run has no folder there (its log went elsewhere) or a link is in the way."""
    try:
        dir_fd = open_run_dir(workspace, run_id)
    except OSError as e:
        if not isinstance(e, FileNotFoundError):
            log.warning("decision of run %s not logged: %s", run_id, e)
        return False
    try:
        append_file(dir_fd, "decisions.jsonl", (json.dumps(record) + "\n").encode("utf-8", "surrogateescape"))
        return True
    except OSError as e:
        log.warning("decision of run %s not logged: %s", run_id, e)
        return False
    finally:
        os.close(dir_fd)

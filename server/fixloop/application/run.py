"""One run, whatever it runs: a fix (`session.FixSession`), a goal (`goal.session.GoalSession`) or a past
fix's check (`fixcheck.FixCheck`) are variants of it, driven the same way by the CLI and the editor: `run`
on a worker with an event callback, `cancel` from anywhere, then `result` (typed) and `apply`."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from fixloop.application.config import Settings
from fixloop.application.result import RunResult
from fixloop.application.runlog import new_run_id
from fixloop.application.workspace_io import ApplyResult
from fixloop.core.model import Event, Outcome


class Run:
    def __init__(self, workspace: Path, settings: Settings, run_id: str = "") -> None:
        self.workspace = workspace
        self.settings = settings
        self.run_id = run_id or new_run_id()  # the editor's run manager names its runs itself
        self.result: RunResult | None = None  # once the run ended
        self._cancel = threading.Event()

    def run(self, on_event: Callable[[Event], None] = lambda e: None) -> Outcome:
        raise NotImplementedError

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def setup_error(self) -> str:
        """Why the run could not start: sandbox | interpreter | internal ("" when it could)."""
        return ""

    @property
    def outcome(self) -> Outcome | None:
        return self.result.outcome if self.result is not None else None

    @property
    def summary(self) -> dict[str, Any]:
        """The result as `--json`, summary.json and the editors have it ({} before the run ended)."""
        return self.result.as_json() if self.result is not None else {}

    def apply(self) -> ApplyResult:
        return ApplyResult((), ("there is no fix to apply",))

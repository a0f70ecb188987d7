"""One run, from request to result. A fix (`session.FixSession`), a goal (`goal.session.GoalSession`) and a
past fix's check (`fixcheck.FixCheck`) are variants of it, driven the same way by the CLI and the editor: made
from one `RunRequest`, `run` on a worker with an event callback, `cancel` from anywhere, then `result`
(typed, `result.RunResult`) and `apply`."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from fixloop.application.config import Settings
from fixloop.application.result import RunResult
from fixloop.application.runlog import new_run_id
from fixloop.application.workspace_io import ApplyResult
from fixloop.core.model import Event, Outcome, Scope


@dataclass(frozen=True)
class RunRequest:
    """What a run is asked for, built once at the edge (the CLI's flags, the editor's command) from settings
    read once there."""

    workspace: Path
    settings: Settings
    scope: Scope = Scope()
    overlays: Mapping[str, str] = field(default_factory=dict)  # the editor's unsaved texts
    # Settings problems found at the edge, named in the run log; None: the project's own, read here.
    notes: tuple[str, ...] | None = None
    seed: int | None = None  # replays a logged run's random choices; None: they follow from the run id
    run_id: str = ""  # the editor's run manager names its runs itself; "" for a new id


class Run:
    def __init__(self, request: RunRequest) -> None:
        self.request = request
        self.workspace = request.workspace
        self.settings = request.settings
        self.run_id = request.run_id or new_run_id()
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

"""Seams to the safety checker and the memory store, with their real implementations loaded lazily.

`DiagnosticsProvider` is what the diagnostics engine asks; `DecisionRecorder` is where review
decisions go. Both are small so fakes (in tests) and the real adapters can stand in for each other.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from fixloop.application.config import Settings
from fixloop.core.model import EntityWarning, Finding, Patch, PatternHit
from fixloop.core.ports import ReviewMemory
from fixloop.application.runlog import record_decision
from fixloop.lsp.contract import ENTITY_CODE, MEMORY_CODE

log = logging.getLogger(__name__)


class MemoryUnavailable(Exception):
    """The memory store cannot be read (or was moved aside): a message for the user."""


@dataclass(frozen=True)
class MemoryPattern:
    """A statement whose shape failed before in this project."""

    line: int  # 1-based, inclusive
    end_line: int
    message: str  # e.g. "this shape failed 3 times: IndexError in test_x; fixed by ..."
    memory_id: str
    fix_diff: str = ""  # the past fix, as a unified diff (shown by "Show the past fix")
    replacement: str | None = None  # lines [line, end_line] as the past fix would have them
    before: str = ""  # lines [line, end_line] as they were when the warning was made (a stale warning applies nothing)
    problem: str = ""  # why there is no replacement
    related_uri: str = ""  # where the past fix can be read
    related_line: int = 0
    column: int = 0  # 0-based characters; end_column 0 = to the end of end_line
    end_column: int = 0
    code: str = MEMORY_CODE  # ENTITY_CODE: a function's history (memory_id is then the entity id)


@runtime_checkable
class EntityMemory(Protocol):
    """A memory with the workspace's code graph (`graph.memory.GraphMemory`): per-function history."""

    notes: list[str]

    def entity_warnings(self, path: str, text: str) -> list[EntityWarning]: ...

    def entity_hover(self, path: str, text: str, line: int) -> str: ...

    def file_saved(self, path: str, text: str) -> None: ...


class DiagnosticsProvider(Protocol):
    def safety(self, path: str, text: str) -> list[Finding]: ...

    def bandit(self, path: str, text: str) -> list[Finding]: ...

    def memory_patterns(self, path: str, text: str) -> list[MemoryPattern]: ...

    def forget(self, memory_id: str) -> bool: ...

    def closed(self, path: str) -> None: ...

    def saved(self, path: str, text: str) -> None:
        """A workspace file was saved (the code graph re-indexes it)."""

    def hover(self, path: str, text: str, line: int) -> str:
        """Markdown for a hover on `line` (1-based) of a workspace file, "" for none."""

    def store(self) -> ReviewMemory | None:
        """The project's memory (review decisions go there too), or None when it is off."""


class DecisionRecorder(Protocol):
    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool, patch: Patch | None) -> None: ...

    def applied(self, run_id: str, patch: Patch) -> str: ...


class DefaultProviders:
    """The safety rules (incremental per document) and bandit, and the project's memory, as `fixloop.application.wiring`
    builds them. Wiring loads on the first document, never on the start-up path."""

    def __init__(self, workspace: Callable[[], Path | None], settings: Callable[[], Settings]) -> None:
        self._workspace = workspace
        self._settings = settings
        self._lock = threading.Lock()
        self._store: ReviewMemory | None = None
        self._store_tried = False
        self._scanners: dict[str, Callable[[str], list[Finding]]] = {}
        self._said = ""  # the memory problem the user was told about

    def safety(self, path: str, text: str) -> list[Finding]:
        from fixloop.application import wiring

        if not self._settings().diagnostics.incremental:
            return wiring.editor_safety_scan(text, path)
        scanner = self._scanners.get(path)
        if scanner is None:
            scanner = self._scanners[path] = wiring.make_editor_scanner(path)
        return scanner(text)

    def closed(self, path: str) -> None:
        self._scanners.pop(path, None)

    def bandit(self, path: str, text: str) -> list[Finding]:
        from fixloop.application import wiring

        return wiring.bandit_findings(text, path)

    def memory_patterns(self, path: str, text: str) -> list[MemoryPattern]:
        """The memory's warnings for `text`; MemoryUnavailable (once per problem) when the store cannot be read
        or was moved aside (then there are no warnings from it)."""
        store = self.store()
        if store is None:
            return []
        found = [as_pattern(hit) for hit in store.patterns_in(path, text)]
        problem = store.problem
        if problem and problem != self._said:
            self._said = problem
            raise MemoryUnavailable(f"fixloop memory: {problem}")
        if isinstance(store, EntityMemory):
            found += [entity_pattern(w) for w in store.entity_warnings(path, text)]
            _log_notes(store)
        return found

    def saved(self, path: str, text: str) -> None:
        store = self.store()
        if isinstance(store, EntityMemory):
            store.file_saved(path, text)
            _log_notes(store)

    def hover(self, path: str, text: str, line: int) -> str:
        store = self.store()
        return store.entity_hover(path, text, line) if isinstance(store, EntityMemory) else ""

    def forget(self, memory_id: str) -> bool:
        store = self.store()
        return store is not None and bool(store.forget(memory_id))

    def store(self) -> ReviewMemory | None:
        """The learning memory, made on first use (LanceDB loads then: never on the start-up path)."""
        with self._lock:
            if self._store_tried:
                return self._store
            self._store_tried = True
            settings = self._settings().memory
            root = self._workspace()
            if not settings.enabled or root is None:
                return None
            try:
                from fixloop.application import wiring

                self._store = wiring.make_review_memory(settings, root)
            except Exception:
                log.exception("the memory could not be opened; memory diagnostics are off")
                self._store = None
            return self._store


class RunDirRecorder:
    """Decisions go to `.fixloop/runs/<id>/decisions.jsonl` and, when there is one, the memory."""

    def __init__(self, workspace: Callable[[], Path | None], memory: Callable[[], ReviewMemory | None],
                 settings: Callable[[], Settings] = Settings) -> None:
        self._workspace = workspace
        self._memory = memory
        self._settings = settings

    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool, patch: Patch | None) -> None:
        record = {"run_id": run_id, "hunk": hunk.get("id"), "path": hunk.get("path"), "accepted": accepted,
                  "old": hunk.get("old"), "new": hunk.get("new")}
        root = self._workspace()
        if root is not None:
            record_decision(root, run_id, record)  # never through a link the project planted
        store = self._memory()
        if store is not None:
            store.record_decision(run_id, str(record["hunk"]), accepted, patch)

    def applied(self, run_id: str, patch: Patch) -> str:
        """What the user's on_apply hook answered ('' when none is set)."""
        from fixloop.application import wiring

        root = self._workspace()
        return wiring.tell_applied(self._settings().hooks, patch, root) if root is not None else ""


def as_pattern(hit: PatternHit) -> MemoryPattern:
    """A memory pattern hit as the editor shows it."""
    return MemoryPattern(line=hit.line, end_line=hit.end_line or hit.line, memory_id=hit.fix_id,
                         message=f"this shape failed {hit.count} times in this project; fixed by {hit.fix_summary}",
                         fix_diff=hit.diff, replacement=hit.after, before=hit.before, problem=hit.problem,
                         column=hit.column, end_column=hit.end_column)


def entity_pattern(w: EntityWarning) -> MemoryPattern:
    """A function's history as a diagnostic on its name."""
    return MemoryPattern(line=w.line, end_line=w.line, message=w.message, memory_id=w.entity, column=w.column,
                         end_column=w.end_column, code=ENTITY_CODE)


def _log_notes(store: EntityMemory) -> None:
    """Say once in the server's log what the memory had to say (e.g. the code graph was rebuilt)."""
    while store.notes:
        log.warning("fixloop memory: %s", store.notes.pop(0))

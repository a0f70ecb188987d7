"""Seams to the safety checker and the memory store, with their real implementations loaded lazily.

`DiagnosticsProvider` is what the diagnostics engine asks; `DecisionRecorder` is where review
decisions go. Both are small so fakes (in tests) and the real adapters can stand in for each other.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

from ..core.model import Finding

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MemoryPattern:
    """A statement whose shape failed before in this project."""

    line: int  # 1-based, inclusive
    end_line: int
    message: str  # e.g. "this shape failed 3 times: IndexError in test_x; fixed by ..."
    memory_id: str
    fix_diff: str = ""  # the past fix, as a unified diff (shown by "Show the past fix")
    replacement: str | None = None  # lines [line, end_line] as the past fix would have them
    related_uri: str = ""  # where the past fix can be read
    related_line: int = 0


class DiagnosticsProvider(Protocol):
    def safety(self, path: str, text: str) -> list[Finding]: ...

    def bandit(self, path: str, text: str) -> list[Finding]: ...

    def memory_patterns(self, path: str, text: str) -> list[MemoryPattern]: ...

    def forget(self, memory_id: str) -> bool: ...


class DecisionRecorder(Protocol):
    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool) -> None: ...


class DefaultProviders:
    """`fixloop.safety` rules and bandit, and the project's memory store, each used once it exists."""

    def __init__(self, workspace: Callable[[], Path | None], memory_settings: Callable[[], Any]) -> None:
        self._workspace = workspace
        self._memory_settings = memory_settings
        self._lock = threading.Lock()
        self._store: Any = None
        self._store_tried = False

    def safety(self, path: str, text: str) -> list[Finding]:
        try:
            from ..safety.rules import scan  # type: ignore[import-not-found]
        except ImportError:
            return []
        return list(scan(text))

    def bandit(self, path: str, text: str) -> list[Finding]:
        try:
            from ..safety.bandit_scan import scan_text  # type: ignore[import-not-found]
        except ImportError:
            return []
        return list(scan_text(text, path))

    def memory_patterns(self, path: str, text: str) -> list[MemoryPattern]:
        store = self.store()
        if store is None or not hasattr(store, "patterns_in"):
            return []
        return [p for p in (_as_pattern(x) for x in store.patterns_in(path, text)) if p is not None]

    def forget(self, memory_id: str) -> bool:
        store = self.store()
        if store is None or not hasattr(store, "forget"):
            return False
        return bool(store.forget(memory_id))

    def store(self) -> Any:
        """The memory store, opened on first use (it loads LanceDB: never on the start-up path)."""
        with self._lock:
            if self._store_tried:
                return self._store
            self._store_tried = True
            settings = self._memory_settings()
            if not getattr(settings, "enabled", True):
                return None
            try:
                from .. import memory
                opener = getattr(memory, "open_store", None)
                if opener is not None:
                    self._store = opener(settings, self._workspace())
            except Exception:
                log.exception("the memory store could not be opened; memory diagnostics are off")
                self._store = None
            return self._store


class RunDirRecorder:
    """Decisions go to `.fixloop/runs/<id>/decisions.jsonl` and, when there is one, the memory store."""

    def __init__(self, workspace: Callable[[], Path | None], providers: Any) -> None:
        self._workspace = workspace
        self._providers = providers

    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool) -> None:
        record = {"run_id": run_id, "hunk": hunk.get("id"), "path": hunk.get("path"), "accepted": accepted,
                  "old": hunk.get("old"), "new": hunk.get("new")}
        root = self._workspace()
        if root is not None:
            run_dir = root / ".fixloop" / "runs" / run_id
            if run_dir.is_dir():
                with open(run_dir / "decisions.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps(record) + "\n")
        store = self._providers.store() if hasattr(self._providers, "store") else None
        if store is not None and hasattr(store, "record_decision"):
            store.record_decision(run_id, record["hunk"], accepted)


def _as_pattern(x: Any) -> MemoryPattern | None:
    """Accept the store's own record type: anything with these attributes (or keys)."""
    get = (lambda k, d=None: x.get(k, d)) if isinstance(x, Mapping) else (lambda k, d=None: getattr(x, k, d))
    line = get("line")
    if not isinstance(line, int):
        return None
    return MemoryPattern(line=line, end_line=int(get("end_line", line) or line), message=str(get("message", "")),
                         memory_id=str(get("memory_id", get("id", ""))), fix_diff=str(get("fix_diff", "") or ""),
                         replacement=get("replacement"), related_uri=str(get("related_uri", "") or ""),
                         related_line=int(get("related_line", 0) or 0))

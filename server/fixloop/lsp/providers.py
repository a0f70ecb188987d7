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

from ..core.model import Finding, Patch

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
    column: int = 0  # 0-based characters; end_column 0 = to the end of end_line
    end_column: int = 0


class DiagnosticsProvider(Protocol):
    def safety(self, path: str, text: str) -> list[Finding]: ...

    def bandit(self, path: str, text: str) -> list[Finding]: ...

    def memory_patterns(self, path: str, text: str) -> list[MemoryPattern]: ...

    def forget(self, memory_id: str) -> bool: ...

    def closed(self, path: str) -> None: ...


class DecisionRecorder(Protocol):
    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool, patch: Patch | None) -> None: ...


class DefaultProviders:
    """`fixloop.safety`'s rules (incremental per document) and bandit, and the project's memory."""

    def __init__(self, workspace: Callable[[], Path | None], settings: Callable[[], Any]) -> None:
        self._workspace = workspace
        self._settings = settings
        self._lock = threading.Lock()
        self._store: Any = None
        self._store_tried = False
        self._scanners: dict[str, Any] = {}

    def safety(self, path: str, text: str) -> list[Finding]:
        from ..safety import catalog, rules  # tree-sitter's grammar loads on the first document

        codes = getattr(catalog, "EDITOR_CODES", None)  # rules about generated code only stay out
        if not self._settings().diagnostics.incremental:
            found = rules.scan(text, path)
        else:
            scanner = self._scanners.get(path)
            if scanner is None:
                scanner = self._scanners[path] = rules.IncrementalScanner(path)
            found = scanner.update(text)
        # What blocks a candidate (e.g. FL-S013) is only a warning in code a person writes.
        return catalog.for_editor(f for f in found if codes is None or f.code in codes)

    def closed(self, path: str) -> None:
        self._scanners.pop(path, None)

    def bandit(self, path: str, text: str) -> list[Finding]:
        from ..safety.bandit_scan import scan_text

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
                from ..memory.factory import make_memory

                self._store = make_memory(settings, root)
            except Exception:
                log.exception("the memory could not be opened; memory diagnostics are off")
                self._store = None
            return self._store


class RunDirRecorder:
    """Decisions go to `.fixloop/runs/<id>/decisions.jsonl` and, when there is one, the memory."""

    def __init__(self, workspace: Callable[[], Path | None], providers: Any) -> None:
        self._workspace = workspace
        self._providers = providers

    def record_decision(self, run_id: str, hunk: Mapping[str, Any], accepted: bool, patch: Patch | None) -> None:
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
            store.record_decision(run_id, str(record["hunk"]), accepted, patch)


def _as_pattern(x: Any) -> MemoryPattern | None:
    """Accept the store's own record type: anything with these attributes (or keys)."""
    get = (lambda k, d=None: x.get(k, d)) if isinstance(x, Mapping) else (lambda k, d=None: getattr(x, k, d))
    line = get("line")
    if not isinstance(line, int):
        return None
    message = get("message")
    if message is None and get("count") is not None:  # fixloop.memory's PatternHit
        message = f"this shape failed {get('count')} times in this project; fixed by {get('fix_summary', '')}"
    memory_id = get("memory_id", None) or get("fix_id", None) or get("id", "")
    return MemoryPattern(line=line, end_line=int(get("end_line", line) or line), message=str(message or ""),
                         memory_id=str(memory_id), fix_diff=str(get("fix_diff", "") or ""),
                         replacement=get("replacement"), related_uri=str(get("related_uri", "") or ""),
                         related_line=int(get("related_line", 0) or 0), column=int(get("column", 0) or 0),
                         end_column=int(get("end_column", 0) or 0))

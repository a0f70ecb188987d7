"""`fixloop-safety` and `fixloop-memory` diagnostics: debounced, computed off the event loop on an
incrementally parsed tree, published as one list per document; bandit runs on save."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types as t

from fixloop.core.model import Finding
from fixloop.lsp.contract import ENTITY_CODE, MEMORY, MEMORY_CODE, SAFETY
from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput, is_python, relative_path
from fixloop.lsp.positions import Units, line_range, line_text
from fixloop.lsp.providers import DiagnosticsProvider, MemoryPattern, MemoryUnavailable

log = logging.getLogger(__name__)
SEVERITY = {"error": 1, "warning": 2, "info": 3, "hint": 4}  # LSP DiagnosticSeverity
Parts = dict[str, list[dict[str, Any]]]  # "safety" | "bandit" | "memory" -> diagnostics as JSON


class DiagnosticsEngine:
    """`publish` sends one `textDocument/publishDiagnostics` params object (plain JSON)."""

    def __init__(self, editor: Editor, provider: DiagnosticsProvider,
                 publish: Callable[[dict[str, Any]], None]) -> None:
        self.editor = editor
        self.provider = provider
        self.publish = publish
        self._rules = ThreadPoolExecutor(1, thread_name_prefix="fixloop-diagnostics")
        self._memory = ThreadPoolExecutor(1, thread_name_prefix="fixloop-memory")
        self._bandit = ThreadPoolExecutor(1, thread_name_prefix="fixloop-bandit")
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._parts: dict[str, Parts] = {}
        self._patterns: dict[str, list[MemoryPattern]] = {}
        self._skipped: set[str] = set()
        self._paths: dict[str, str] = {}
        self._sent: set[str] = set()
        self._converted: dict[str, dict[tuple[Any, str, str], dict[str, Any]]] = {}
        self._checks: dict[str, int] = {}  # per document, the number of the latest check

    # ---- document events ---------------------------------------------------------------------
    def changed(self, uri: str) -> None:
        settings = self.editor.config().settings.diagnostics
        loop = asyncio.get_running_loop()
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._timers[uri] = loop.call_later(settings.debounce_ms / 1000, self._check, uri)

    def saved(self, uri: str) -> None:
        target = self._target(uri)
        if target is not None and self.editor.root() is not None and not Path(target[0]).is_absolute():
            self._submit(self._memory, uri, target[2], lambda: self.provider.saved(target[0], target[1]))
        if target is None or not self.editor.config().settings.diagnostics.safety:
            return
        if not self.editor.config().settings.diagnostics.bandit_on_save:
            return
        path, text, version = target
        self._submit(self._bandit, uri, version, lambda: {"bandit": self._bandit_part(path, text)})

    def closed(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._parts.pop(uri, None)
        self._sent.discard(uri)
        self._converted.pop(uri, None)
        self._checks.pop(uri, None)
        self._patterns.pop(uri, None)
        self._skipped.discard(uri)
        path = self._paths.pop(uri, None)
        if path is not None:
            self._rules.submit(self.provider.closed, path)
        self._send(uri, [], None)

    def refresh_all(self) -> None:
        for uri in [doc.uri for doc in list(self.editor.workspace().text_documents.values())]:
            self.changed(uri)

    def pattern(self, uri: str, memory_id: str, line: int | None = None) -> MemoryPattern | None:
        """The memory pattern `memory_id` (at 1-based `line`: a shape may occur more than once) as last
        shown on document `uri`, if it still is; entity warnings are not past fixes."""
        return next((p for p in self._patterns.get(uri, [])
                     if p.memory_id == memory_id and p.code == MEMORY_CODE and line in (None, p.line)), None)

    def forget(self, memory_id: str) -> bool:
        """Drop a memory entry; every open document is checked again when one went."""
        forgotten = self.provider.forget(memory_id)
        if forgotten:
            self.refresh_all()
        return forgotten

    def close(self) -> None:
        self._rules.shutdown(wait=False, cancel_futures=True)
        self._memory.shutdown(wait=False, cancel_futures=True)
        self._bandit.shutdown(wait=False, cancel_futures=True)

    # ---- checking ----------------------------------------------------------------------------
    def _check(self, uri: str) -> None:
        self._timers.pop(uri, None)
        target = self._target(uri)
        if target is None:
            if self._parts.pop(uri, None):
                self._send(uri, [], None)
            return
        path, text, version = target
        settings = self.editor.config().settings.diagnostics
        inside = self.editor.root() is not None and not Path(path).is_absolute()

        self._paths[uri] = path
        loop = asyncio.get_running_loop()
        check = self._checks[uri] = self._checks.get(uri, 0) + 1

        def stale() -> bool:  # a newer check of this document is queued: skip, it will publish
            return self._checks.get(uri) != check

        def safety() -> Parts | None:
            if stale():
                return None
            found = self.provider.safety(path, text) if settings.safety else []
            lines = text.splitlines()
            # Most findings survive an edit unchanged: reuse their converted form (keyed by the
            # finding and the text of its line); the cache holds only this check's findings.
            old = self._converted.get(uri, {})
            units = self.editor.units()
            new: dict[tuple[Any, str, str], dict[str, Any]] = {}
            out = []
            for f in found:
                key = (f, line_text(lines, f.line), line_text(lines, f.end_line or f.line))
                d = old.get(key) or to_diagnostic(f, lines, SAFETY, units)
                new[key] = d
                out.append(d)
            self._converted[uri] = new
            return {"safety": out}

        def memory() -> Parts | None:
            if stale():
                return None
            try:
                patterns = self.provider.memory_patterns(path, text) if settings.memory and inside else []
            except MemoryUnavailable as e:  # said once; the other diagnostics go on
                patterns = []
                with contextlib.suppress(RuntimeError):  # the loop has closed: the server is exiting
                    loop.call_soon_threadsafe(self.editor.show, t.MessageType.Warning, str(e))
            self._patterns[uri] = patterns
            lines = text.splitlines()
            return {"memory": [memory_diagnostic(p, lines, self.editor.units()) for p in patterns]}

        self._submit(self._rules, uri, version, safety)
        self._submit(self._memory, uri, version, memory)

    def _submit(self, pool: ThreadPoolExecutor, uri: str, version: int | None,
                work: Callable[[], Parts | None]) -> None:
        loop = asyncio.get_running_loop()

        def done(f: Future[Parts | None]) -> None:
            if f.cancelled() or (f.exception() is None and f.result() is None):
                return
            if f.exception() is not None:
                log.error("diagnostics failed for %s: %s", uri, f.exception())
                return
            try:
                loop.call_soon_threadsafe(self._publish, uri, version, f.result())
            except RuntimeError:  # the loop has closed: the server is exiting
                pass

        try:
            pool.submit(work).add_done_callback(done)
        except RuntimeError:  # the pool is shut down
            pass

    def _publish(self, uri: str, version: int | None, parts: Parts) -> None:
        """Publish the union of the parts, when a part changed. Diagnostics are plain JSON-ready
        dicts: a 2,000-line file has hundreds, and converting lsprotocol objects costs more than finding them."""
        doc = self.editor.document(uri)
        if doc is None:
            return
        if version is not None and doc.version is not None and version < doc.version and uri in self._timers:
            return  # a newer check is on its way
        current = self._parts.setdefault(uri, {})
        if all(current.get(k) == v for k, v in parts.items()) and uri in self._sent:
            return
        current.update(parts)
        if not self.editor.config().settings.diagnostics.safety:
            current.pop("bandit", None)
        items = [d for key in ("safety", "bandit", "memory") for d in current.get(key, [])]
        self._sent.add(uri)
        self._send(uri, items, version)

    def _send(self, uri: str, items: list[dict[str, Any]], version: int | None) -> None:
        params: dict[str, Any] = {"uri": uri, "diagnostics": items}
        if version is not None:
            params["version"] = version
        self.publish(params)

    def _target(self, uri: str) -> tuple[str, str, int | None] | None:
        """(path, text, version) of a document we check, or None (not a Python file on disk, too big)."""
        doc = self.editor.document(uri)
        if doc is None or not uri.startswith("file:"):
            return None
        root = self.editor.root()
        try:
            path = relative_path(root, uri) if root is not None else Path(doc.path).as_posix()
        except BadInput:
            path = Path(doc.path).as_posix()
        if not is_python(path, doc.language_id):
            return None
        text = doc.source
        limit = self.editor.config().settings.diagnostics.max_file_bytes
        if len(text) > limit:
            if uri not in self._skipped:
                self._skipped.add(uri)
                self.editor.log(f"{path}: {len(text)} characters, over the {limit} limit; not checked")
            return None
        self._skipped.discard(uri)
        return path, text, doc.version

    def _bandit_part(self, path: str, text: str) -> list[dict[str, Any]]:
        lines = text.splitlines()
        return [to_diagnostic(f, lines, SAFETY, self.editor.units()) for f in self.provider.bandit(path, text)]


def to_diagnostic(f: Finding, lines: list[str], source: str, units: Units) -> dict[str, Any]:
    rng = line_range(lines, f.line, f.end_line or None, units, f.column, f.end_column)
    return {"range": rng, "message": f.message, "source": source, "code": f.code,
            "severity": SEVERITY.get(f.severity, 2)}


def memory_diagnostic(p: MemoryPattern, lines: list[str], units: Units) -> dict[str, Any]:
    entity = p.code == ENTITY_CODE  # a function's own history: a warning on its name
    out: dict[str, Any] = {"range": line_range(lines, p.line, p.end_line, units, p.column, p.end_column),
                           "message": p.message, "source": MEMORY, "code": p.code, "severity": 2 if entity else 3,
                           "data": {"entity": p.memory_id} if entity else {"memory_id": p.memory_id, "line": p.line}}
    if p.related_uri:
        at = {"line": max(0, p.related_line - 1), "character": 0}
        out["relatedInformation"] = [{"location": {"uri": p.related_uri, "range": {"start": at, "end": at}},
                                      "message": "the past fix"}]
    return out

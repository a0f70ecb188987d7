"""`fixloop-safety` and `fixloop-memory` diagnostics: debounced, computed off the event loop on an
incrementally parsed tree, published as one list per document; bandit runs on save."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import unquote

from lsprotocol import types as t

from ..core.model import Finding
from .paths import BadInput, is_python, relative_path
from .providers import DiagnosticsProvider, MemoryPattern

if TYPE_CHECKING:
    from .server import FixloopServer

log = logging.getLogger(__name__)
SAFETY, MEMORY = "fixloop-safety", "fixloop-memory"
SEVERITY = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning,
            "info": t.DiagnosticSeverity.Information, "hint": t.DiagnosticSeverity.Hint}


class DiagnosticsEngine:
    def __init__(self, server: "FixloopServer", provider: DiagnosticsProvider) -> None:
        self.server = server
        self.provider = provider
        self._rules = ThreadPoolExecutor(1, thread_name_prefix="fixloop-diagnostics")
        self._memory = ThreadPoolExecutor(1, thread_name_prefix="fixloop-memory")
        self._bandit = ThreadPoolExecutor(1, thread_name_prefix="fixloop-bandit")
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._parts: dict[str, dict[str, list[t.Diagnostic]]] = {}
        self.patterns: dict[str, list[MemoryPattern]] = {}
        self._skipped: set[str] = set()
        self._paths: dict[str, str] = {}
        self.published = 0

    # ---- document events ---------------------------------------------------------------------
    def changed(self, uri: str) -> None:
        settings = self.server.config.settings.diagnostics
        loop = asyncio.get_running_loop()
        uri = unquote(uri)
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._timers[uri] = loop.call_later(settings.debounce_ms / 1000, self._check, uri)

    def saved(self, uri: str) -> None:
        uri = unquote(uri)
        target = self._target(uri)
        if target is None or not self.server.config.settings.diagnostics.safety:
            return
        if not self.server.config.settings.diagnostics.bandit_on_save:
            return
        path, text, version = target
        self._submit(self._bandit, uri, version, lambda: {"bandit": self._bandit_part(path, text)})

    def closed(self, uri: str) -> None:
        uri = unquote(uri)
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._parts.pop(uri, None)
        self.patterns.pop(uri, None)
        self._skipped.discard(uri)
        path = self._paths.pop(uri, None)
        if path is not None:
            self._rules.submit(self.provider.closed, path)
        self.server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def refresh_all(self) -> None:
        for uri in list(self.server.workspace.text_documents):
            self.changed(uri)

    def close(self) -> None:
        self._rules.shutdown(wait=False, cancel_futures=True)
        self._memory.shutdown(wait=False, cancel_futures=True)
        self._bandit.shutdown(wait=False, cancel_futures=True)

    # ---- checking ----------------------------------------------------------------------------
    def _check(self, uri: str) -> None:
        self._timers.pop(uri, None)
        target = self._target(uri)
        if target is None:
            if uri in self._parts:
                self._parts.pop(uri)
                self._publish(uri, None, {})
            return
        path, text, version = target
        settings = self.server.config.settings.diagnostics
        inside = self.server.root is not None and not Path(path).is_absolute()

        self._paths[uri] = path

        def safety() -> dict[str, list[t.Diagnostic]]:
            found = self.provider.safety(path, text) if settings.safety else []
            lines = text.splitlines()
            return {"safety": [to_diagnostic(f, lines, SAFETY, self._units) for f in found]}

        def memory() -> dict[str, list[t.Diagnostic]]:
            patterns = self.provider.memory_patterns(path, text) if settings.memory and inside else []
            self.patterns[uri] = patterns
            lines = text.splitlines()
            return {"memory": [memory_diagnostic(p, lines, self._units) for p in patterns]}

        self._submit(self._rules, uri, version, safety)
        self._submit(self._memory, uri, version, memory)

    def _submit(self, pool: ThreadPoolExecutor, uri: str, version: int | None,
                work: Callable[[], dict[str, list[t.Diagnostic]]]) -> None:
        loop = asyncio.get_running_loop()

        def done(f: Future[dict[str, list[t.Diagnostic]]]) -> None:
            if f.cancelled():
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

    def _publish(self, uri: str, version: int | None, parts: dict[str, list[t.Diagnostic]]) -> None:
        doc = self.server.workspace.text_documents.get(uri)
        if doc is None:
            return
        if version is not None and doc.version is not None and doc.version != version and uri in self._timers:
            return  # a newer check is on its way
        current = self._parts.setdefault(uri, {})
        current.update(parts)
        if not self.server.config.settings.diagnostics.safety:
            current.pop("bandit", None)
        items = [d for key in ("safety", "bandit", "memory") for d in current.get(key, [])]
        self.published += 1
        self.server.text_document_publish_diagnostics(
            t.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=doc.version))

    def _target(self, uri: str) -> tuple[str, str, int | None] | None:
        """(path, text, version) of a document we check, or None (not a Python file on disk, too big)."""
        doc = self.server.workspace.text_documents.get(uri)
        if doc is None or not uri.startswith("file:"):
            return None
        root = self.server.root
        try:
            path = relative_path(root, uri) if root is not None else Path(doc.path).as_posix()
        except BadInput:
            path = Path(doc.path).as_posix()
        if not is_python(path, doc.language_id):
            return None
        text = doc.source
        limit = self.server.config.settings.diagnostics.max_file_bytes
        if len(text) > limit:
            if uri not in self._skipped:
                self._skipped.add(uri)
                self.server.log(f"{path}: {len(text)} characters, over the {limit} limit; not checked")
            return None
        self._skipped.discard(uri)
        return path, text, doc.version

    def _bandit_part(self, path: str, text: str) -> list[t.Diagnostic]:
        lines = text.splitlines()
        return [to_diagnostic(f, lines, SAFETY, self._units) for f in self.provider.bandit(path, text)]

    @property
    def _units(self) -> Callable[[str], int]:
        return self.server.review._units()


def line_range(lines: list[str], line: int, end_line: int | None, units: Callable[[str], int],
               column: int = 0, end_column: int = 0) -> t.Range:
    """1-based lines [line, end_line] from `column` (default: after the indentation) to `end_column`
    (default: the end of the line), in the client's position units."""
    first = max(0, min(line - 1, len(lines) - 1)) if lines else 0
    last = max(first, min((end_line or line) - 1, len(lines) - 1)) if lines else 0
    head = lines[first] if lines else ""
    start = column if column else len(head) - len(head.lstrip())
    tail = lines[last] if lines else ""
    end = end_column if end_column and (last > first or end_column > start) else len(tail)
    return t.Range(t.Position(first, units(head[:start])), t.Position(last, units(tail[:end])))


def to_diagnostic(f: Finding, lines: list[str], source: str, units: Callable[[str], int]) -> t.Diagnostic:
    rng = line_range(lines, f.line, getattr(f, "end_line", 0) or None, units,
                     getattr(f, "column", 0), getattr(f, "end_column", 0))
    return t.Diagnostic(range=rng, message=f.message, source=source,
                        code=f.code, severity=SEVERITY.get(f.severity, t.DiagnosticSeverity.Warning))


def memory_diagnostic(p: MemoryPattern, lines: list[str], units: Callable[[str], int]) -> t.Diagnostic:
    rng = line_range(lines, p.line, p.end_line, units, p.column, p.end_column)
    related = None
    if p.related_uri:
        at = t.Position(max(0, p.related_line - 1), 0)
        related = [t.DiagnosticRelatedInformation(location=t.Location(uri=p.related_uri, range=t.Range(at, at)),
                                                  message="the past fix")]
    data: Any = {"memory_id": p.memory_id}
    return t.Diagnostic(range=rng, message=p.message, source=MEMORY, code="FL-M001",
                        severity=t.DiagnosticSeverity.Information, related_information=related, data=data)

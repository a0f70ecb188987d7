"""The learning memory with its workspace's code graph: entity-level warnings and hovers for the editor,
the tests' coverage recorded as graph edges after a run, and a small prior for localization.

The graph is loaded from the store on first use (and files changed on disk since are re-indexed), built
from the workspace when the store has none, and re-indexed one file at a time when the editor saves it.
Like every memory feature, a graph problem is logged and answered with nothing, never raised.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Mapping

from fixloop.core.model import EntityWarning, Outcome, Suspect
from fixloop.core.ports import ProposalContext
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.store import MemoryStore
from fixloop.kit.entities import CALLABLE, CLASS, digest, index_source, module_name
from fixloop.adapters.graph.graph import CodeGraph
from fixloop.adapters.graph.history import EntityHistory, EntityRecord, hover_text, warning_text
from fixloop.adapters.graph.store import GraphRefused, GraphStore
from fixloop.adapters.graph.walk import python_files

MAX_PRIOR = 1.1  # the most an entity's history may raise a suspect's score: it reorders near-ties only
PRIOR_HALF = 3.0  # evidence (fixes + failures / 2) at which half of the boost is reached


def prior_factor(rec: EntityRecord | None) -> float:
    """1.0 without history, rising towards MAX_PRIOR with the fixes and failures remembered here."""
    if rec is None:
        return 1.0
    evidence = rec.fixed + 0.5 * min(rec.failures, 20)
    return 1.0 + (MAX_PRIOR - 1.0) * evidence / (evidence + PRIOR_HALF)


class GraphMemory(LearningMemory):
    def __init__(self, store: MemoryStore, project: str, workspace: Path | None = None, *args: Any,
                 **kwargs: Any) -> None:
        super().__init__(store, project, *args, **kwargs)
        self.workspace = workspace
        self.graph_store = GraphStore(store)
        self.history = EntityHistory(store, project, now=self.now)
        self._graph: CodeGraph | None = None
        self._spectra: Mapping[str, Mapping[str, Any]] = {}
        self._told = False

    # ---- the graph ---------------------------------------------------------------------------------
    def code_graph(self) -> CodeGraph | None:
        return self._safe("graph", self._code_graph, None)

    def _code_graph(self) -> CodeGraph | None:
        """The graph, or None while the store holds one of a newer fixloop (said once in `notes`)."""
        if self._graph is not None:
            return self._graph
        try:
            files, coverage = self.graph_store.load(self.project)
        except GraphRefused:
            return None
        finally:
            self._tell(self.graph_store.problem)
        graph = CodeGraph()
        graph.files.update(files)
        graph.coverage.update(coverage)
        if self.workspace is not None and self.workspace.is_dir():  # files new, changed or gone since stored
            changed = []
            seen = set()
            for path, text in python_files(self.workspace):
                seen.add(path)
                old = files.get(path)
                if old is None or old.digest != digest(text):
                    held = graph.put(index_source(path, text))
                    if held is not None and held is not old:
                        changed.append(held)
            gone = [p for p in files if p not in seen]
            for path in gone:
                graph.remove(path)
            if changed or gone:
                self.graph_store.replace_files(self.project, changed, gone, everything=not files)
        self._graph = graph
        return graph

    def _tell(self, message: str) -> None:
        if message and not self._told:
            self._told = True
            self.notes.append(message)

    def file_saved(self, path: str, text: str) -> None:
        """The editor saved `path`: re-index that file alone (a file that does not parse keeps its last index)."""
        self._safe("graph update", lambda: self._file_saved(path, text), None)

    def _file_saved(self, path: str, text: str) -> None:
        graph = self._code_graph()
        index = index_source(path, text)
        if graph is not None and graph.put(index) is index:
            self.graph_store.replace_files(self.project, [index])

    # ---- the editor --------------------------------------------------------------------------------
    def entity_warnings(self, path: str, text: str) -> list[EntityWarning]:
        return self._safe("entity warnings", lambda: self._entity_warnings(path, text), [])

    def _entity_warnings(self, path: str, text: str) -> list[EntityWarning]:
        prefix = module_name(path) + "::"
        records = {k: v for k, v in self.history.records().items() if k.startswith(prefix)}
        if not records:  # nothing remembered in this module: no parse
            return []
        out = []
        for e in self._live_entities(path, text):
            rec = records.get(e.id)
            if rec is None or e.kind not in CALLABLE:
                continue
            if rec.recent >= max(self.min_pattern_count, 1) or rec.rejected:
                out.append(EntityWarning(e.id, e.line, e.column, e.end_column, warning_text(e.short, rec)))
        return out

    def entity_hover(self, path: str, text: str, line: int) -> str:
        """Markdown on a function's (or class's) name line: its history, tests, callers and callees."""
        return self._safe("hover", lambda: self._entity_hover(path, text, line), "")

    def _entity_hover(self, path: str, text: str, line: int) -> str:
        entity = next((e for e in self._live_entities(path, text)
                       if e.line == line and (e.kind in CALLABLE or e.kind == CLASS)), None)
        if entity is None:
            return ""
        graph = self._code_graph() or CodeGraph()  # a refused graph: the history alone
        return hover_text(entity.id, entity.short, self.history.get(entity.id), graph.callers(entity.id),
                          graph.callees(entity.id), graph.tests_of(entity.id))

    def _live_entities(self, path: str, text: str) -> tuple[Any, ...]:
        """The entities of the text as the editor has it; the graph's last good index while it does not parse."""
        index = index_source(path, text)
        if index.ok:
            return index.entities
        graph = self._graph
        return graph.entities_in(path) if graph is not None else ()

    # ---- a run -------------------------------------------------------------------------------------
    def note_spectrum(self, spectra: Mapping[str, Mapping[str, Any]]) -> None:
        """The localizer's per-test coverage: stored as test -> function edges when the run ends."""
        self._spectra = spectra

    def rerank(self, suspects: tuple[Suspect, ...], sources: Mapping[str, str]) -> tuple[Suspect, ...]:
        """Suspects whose function has a history here move up by at most MAX_PRIOR (x1.1)."""
        return self._safe("prior", lambda: self._rerank(suspects, sources), suspects)

    def _rerank(self, suspects: tuple[Suspect, ...], sources: Mapping[str, str]) -> tuple[Suspect, ...]:
        from fixloop.kit.entity_links import entity_at

        records = self.history.records()
        if not records or not suspects:
            return suspects
        out = []
        for s in suspects:
            factor = prior_factor(records.get(entity_at(sources, s.path, s.line)))
            if factor > 1.0:
                s = dataclasses.replace(s, score=round(s.score * factor, 6),
                                        reason=f"{s.reason}; history x{factor:.2f}")
            out.append(s)
        return tuple(sorted(out, key=lambda s: (-s.score, s.path, s.line)))

    def record_outcome(self, outcome: Outcome, ctx: ProposalContext | None) -> None:
        super().record_outcome(outcome, ctx)
        spectra, self._spectra = self._spectra, {}
        if spectra and outcome.baseline is not None:
            self._safe("graph coverage", lambda: self._record_coverage(spectra), None)

    def _record_coverage(self, spectra: Mapping[str, Mapping[str, Any]]) -> None:
        graph = self._code_graph()
        if graph is not None:
            self.graph_store.replace_coverage(self.project, graph.add_coverage(spectra))

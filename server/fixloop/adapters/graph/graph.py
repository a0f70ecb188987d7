"""The code graph in memory: per-file indexes, and the edges between entities resolved across files.

Edges: `calls` (a function's calls, resolved through the module's own definitions, its imports, `self.`
and, for a name defined once in the workspace, that definition), `imports` (module -> workspace module)
and `tests` (a test -> the functions it calls, statically, plus those its recorded coverage ran).
Resolution is redone lazily after a file changes: a few thousand entities take milliseconds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from fixloop.kit.entities import CALLABLE, CLASS, MODULE, TEST, Entity, FileIndex, enclosing, entity_id, index_source, test_entity_id

MAX_SAME_NAME = 3  # an unqualified `x.save()` may mean any `save`: link at most this many, else none


@dataclass
class _Links:
    by_id: dict[str, Entity] = field(default_factory=dict)
    calls: dict[str, set[str]] = field(default_factory=dict)
    callers: dict[str, set[str]] = field(default_factory=dict)
    imports: dict[str, set[str]] = field(default_factory=dict)
    tests: dict[str, set[str]] = field(default_factory=dict)  # entity -> the tests that exercise it


class CodeGraph:
    def __init__(self) -> None:
        self.files: dict[str, FileIndex] = {}
        self.coverage: dict[str, set[str]] = {}  # test entity -> entities its recorded run executed
        self._links: _Links | None = None
        self._lock = threading.RLock()

    # ---- changing it -------------------------------------------------------------------------------
    def put(self, index: FileIndex) -> FileIndex | None:
        """Take a file's new index. One that did not parse keeps the last good index of the file (or,
        with none, leaves the file out). Returns the index the graph now holds for the path."""
        with self._lock:
            if not index.ok:
                return self.files.get(index.path)
            self.files[index.path] = index
            self._links = None
            return index

    def remove(self, path: str) -> None:
        with self._lock:
            if self.files.pop(path, None) is not None:
                self._links = None

    def add_coverage(self, spectra: Mapping[str, Mapping[str, Iterable[int]]]) -> dict[str, set[str]]:
        """Per-test executed lines (the localizer's spectrum) -> the functions each test ran. Returns the
        new edges (test -> entities), replacing what the graph knew of those tests."""
        out: dict[str, set[str]] = {}
        with self._lock:
            for nodeid, files in spectra.items():
                test = test_entity_id(nodeid)
                ran: set[str] = set()
                for path, lines in files.items():
                    index = self.files.get(path)
                    if index is None:
                        continue
                    functions = sorted((e for e in index.entities if e.kind in CALLABLE and e.kind != TEST),
                                       key=lambda e: e.line)
                    for line in lines:
                        hit = _innermost(functions, line)
                        if hit is not None:
                            ran.add(hit.id)
                out[test] = ran
            self.coverage.update(out)
            self._links = None
        return out

    # ---- asking it ---------------------------------------------------------------------------------
    def entity(self, entity_id_: str) -> Entity | None:
        return self.links().by_id.get(entity_id_)

    def entity_at(self, path: str, line: int) -> Entity | None:
        index = self.files.get(path)
        return enclosing(index, line) if index is not None else None

    def entities_in(self, path: str) -> tuple[Entity, ...]:
        index = self.files.get(path)
        return index.entities if index is not None else ()

    def callers(self, entity_id_: str) -> list[str]:
        return sorted(self.links().callers.get(entity_id_, ()))

    def callees(self, entity_id_: str) -> list[str]:
        return sorted(self.links().calls.get(entity_id_, ()))

    def imports(self, module: str) -> list[str]:
        return sorted(self.links().imports.get(module, ()))

    def tests_of(self, entity_id_: str) -> list[str]:
        return sorted(self.links().tests.get(entity_id_, ()))

    def size(self) -> tuple[int, int]:
        """(entities, edges)."""
        links = self.links()
        edges = sum(len(v) for v in links.calls.values()) + sum(len(v) for v in links.imports.values())
        return len(links.by_id), edges + sum(len(v) for v in links.tests.values())

    def links(self) -> _Links:
        with self._lock:
            if self._links is None:
                self._links = _resolve(self.files, self.coverage)
            return self._links


def graph_of(sources: Mapping[str, str]) -> CodeGraph:
    """A graph of in-memory sources (a run's scratch copy), every `.py` file indexed."""
    graph = CodeGraph()
    for path, text in sources.items():
        if path.endswith(".py"):
            graph.put(index_source(path, text))
    return graph


def _innermost(functions: list[Entity], line: int) -> Entity | None:
    best = None
    for e in functions:
        if e.line > line:
            break
        if e.end_line >= line:
            best = e
    return best


def _resolve(files: Mapping[str, FileIndex], coverage: Mapping[str, set[str]]) -> _Links:
    links = _Links()
    by_short: dict[str, list[str]] = {}
    for index in files.values():
        for e in index.entities:
            links.by_id[e.id] = e
            if e.kind in CALLABLE or e.kind == CLASS:
                by_short.setdefault(e.short, []).append(e.id)
    modules = {index.module for index in files.values()}
    for index in files.values():
        bound = _bindings(index, links.by_id, modules)
        for ref in index.refs:
            if ref.kind == "imports":
                target = ref.target if ref.target in modules else ref.target.rpartition(".")[0]
                if target in modules and target != index.module:
                    links.imports.setdefault(index.module, set()).add(target)
                continue
            for callee in _callees(ref.src, ref.target, index.module, bound, links.by_id, by_short):
                if callee != ref.src:
                    links.calls.setdefault(ref.src, set()).add(callee)
                    links.callers.setdefault(callee, set()).add(ref.src)
    for src, targets in links.calls.items():
        entity = links.by_id.get(src)
        if entity is not None and entity.kind == TEST:
            for target in targets:
                links.tests.setdefault(target, set()).add(src)
    for test, ran in coverage.items():
        for target in ran:
            links.tests.setdefault(target, set()).add(test)
    return links


def _bindings(index: FileIndex, by_id: Mapping[str, Entity], modules: set[str]) -> dict[str, str]:
    """Names the module binds by import: local name -> an entity id or a module name."""
    out: dict[str, str] = {}
    for ref in index.refs:
        if ref.kind != "imports" or not ref.alias:
            continue
        if "." in ref.target and ref.alias == ref.target.split(".", 1)[0]:  # `import a.b` binds `a`
            out[ref.alias] = ref.alias
            continue
        if ref.target in modules:
            out[ref.alias] = ref.target
            continue
        module, _, name = ref.target.rpartition(".")
        candidate = entity_id(module, name)
        if candidate in by_id:
            out[ref.alias] = candidate
    return out


def _callees(src: str, target: str, module: str, bound: Mapping[str, str], by_id: Mapping[str, Entity],
             by_short: Mapping[str, list[str]]) -> list[str]:
    head, _, name = target.rpartition(".")
    if head in ("self", "cls"):
        owner = by_id.get(src)
        cls = owner.name.rpartition(".")[0] if owner is not None else ""
        candidate = entity_id(module, f"{cls}.{name}" if cls else name)
        if candidate in by_id:
            return [candidate]
    elif not head:
        for candidate in (entity_id(module, name), bound.get(name, "")):
            if candidate in by_id:
                return [_constructor(candidate, by_id)]
    else:
        base = bound.get(head.split(".", 1)[0], "")
        owner = by_id.get(base)
        if base and (owner is None or owner.kind == MODULE):  # an imported module: `mod.f()`, `pkg.mod.f()`
            candidate = entity_id(base + head[len(head.split(".", 1)[0]):], name)
            if candidate in by_id:
                return [candidate]
        elif owner is not None:  # an imported class: `Cart.total()`
            candidate = entity_id(owner.id.split("::")[0], f"{owner.name}.{name}")
            if candidate in by_id:
                return [candidate]
    same = by_short.get(name, [])
    return [_constructor(c, by_id) for c in same] if 0 < len(same) <= MAX_SAME_NAME else []


def _constructor(candidate: str, by_id: Mapping[str, Entity]) -> str:
    """A call of a class runs its `__init__` when it has one."""
    entity = by_id[candidate]
    if entity.kind == CLASS:
        init = f"{candidate}.__init__"
        return init if init in by_id else candidate
    return candidate

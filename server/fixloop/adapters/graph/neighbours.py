"""The suspects' callers and callees, for the model's context: who calls the suspect function (with the
calling line) and what it calls (with each callee's signature), from a graph of the run's sources."""

from __future__ import annotations

import threading
from typing import Callable, Mapping, Sequence

from fixloop.core.model import Suspect
from fixloop.kit.entities import Entity
from fixloop.adapters.graph.graph import CodeGraph, graph_of

MAX_EACH = 6  # callers, and callees, per suspect function
_last: list[tuple[Mapping[str, str], CodeGraph]] = []  # one run's sources -> its graph (the same mapping all run)
_lock = threading.Lock()


def _graph(sources: Mapping[str, str]) -> CodeGraph:
    with _lock:
        if _last and _last[0][0] is sources:
            return _last[0][1]
    graph = graph_of(sources)
    with _lock:
        _last[:] = [(sources, graph)]
    return graph


def _line(sources: Mapping[str, str], path: str, line: int) -> str:
    lines = sources.get(path, "").splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _call_line(sources: Mapping[str, str], caller: Entity, callee: Entity) -> tuple[int, str]:
    """The first line of `caller` that names `callee`, else its `def` line."""
    lines = sources.get(caller.path, "").splitlines()
    for number in range(caller.line + 1, min(caller.end_line, len(lines)) + 1):
        if callee.short + "(" in lines[number - 1].replace(" (", "("):
            return number, lines[number - 1].strip()
    return caller.line, _line(sources, caller.path, caller.line)


def callers_and_callees(sources: Mapping[str, str], suspects: Sequence[Suspect],
                        is_test_file: Callable[[str], bool], max_functions: int = 3) -> str:
    graph = _graph(sources)
    seen: list[Entity] = []
    for s in suspects:
        if is_test_file(s.path):
            continue
        entity = graph.entity_at(s.path, s.line)
        if entity is not None and entity not in seen:
            seen.append(entity)
        if len(seen) >= max_functions:
            break
    out = []
    for entity in seen:
        block = [f"{entity.id} ({entity.path}:{entity.line})"]
        callers = [c for c in (graph.entity(i) for i in graph.callers(entity.id)) if c is not None]
        # Test callers are left out: the failing tests' source is a section of its own.
        for caller in [c for c in callers if not is_test_file(c.path)][:MAX_EACH]:
            number, text = _call_line(sources, caller, entity)
            block.append(f"  called by {caller.id} at {caller.path}:{number}: {text}")
        for callee_id in graph.callees(entity.id)[:MAX_EACH]:
            callee = graph.entity(callee_id)
            if callee is not None:
                block.append(f"  calls {callee.id} ({callee.path}:{callee.line}): "
                             f"{_line(sources, callee.path, callee.line)}")
        if len(block) > 1:
            out.append("\n".join(block))
    return "\n".join(out)

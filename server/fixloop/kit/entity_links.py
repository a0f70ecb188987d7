"""Which entity a failure, a fix or a review decision belongs to (`module::Class.func`), so the memory's
history can be asked per entity. Computed from the sources a run already holds; parsing is cached per text."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from fixloop.core.model import Patch, Suspect, TestResult
from fixloop.kit.entities import enclosing, index_of


def entity_at(sources: Mapping[str, str], path: str, line: int) -> str:
    """The innermost function, method or test of `path` holding `line`; "" when none (module level, unknown)."""
    text = sources.get(path)
    if text is None or not path.endswith(".py"):
        return ""
    entity = enclosing(index_of(path, text), line)
    return entity.id if entity is not None else ""


def suspect_entity(sources: Mapping[str, str], suspects: Sequence[Suspect], failing: Sequence[TestResult],
                   is_test_file: Callable[[str], bool]) -> str:
    """The entity of the most suspicious line, or else of the deepest project frame outside the tests."""
    for s in suspects[:5]:
        found = entity_at(sources, s.path, s.line)
        if found:
            return found
    for result in failing[:1]:
        for frame in reversed(result.frames):
            if frame.in_project and not is_test_file(frame.path):
                found = entity_at(sources, frame.path, frame.line)
                if found:
                    return found
    return ""


def fixed_entity(patch: Patch) -> str:
    """The entity of the first line the patch changes, in the source before it."""
    for change in patch.changes:
        before, after = change.before.splitlines(), change.after.splitlines()
        line = next((i for i, (a, b) in enumerate(zip(before, after), 1) if a != b), min(len(before), len(after)) + 1)
        found = entity_at({change.path: change.before}, change.path, line)
        if found:
            return found
    return ""

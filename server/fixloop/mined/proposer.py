"""The engine's side: approved templates as a proposer.

At every suspect line (most suspicious first) whose statement has a template's before-shape, the
template's edit is made with this code's names. `MinedTemplateProposer()` serves the templates that
keep working, ahead of the generic operators; `MinedTemplateProposer(demoted=True)` the ones that lost
their place, after them. Rejected and merely proposed templates are never used.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from ..core.model import FileChange, Patch
from ..core.patch import TextEdit, apply_edits
from ..core.ports import ProposalContext
from ..memory.shapes import Token, statements
from ..repair.syntax import parses
from .model import MinedTemplate, apply_to

if TYPE_CHECKING:
    from ..memory.store import MemoryStore

log = logging.getLogger("fixloop.mined")


class MinedTemplateProposer:
    name = "template"
    adaptive = False

    def __init__(self, load: Callable[[], Sequence[MinedTemplate]], demoted: bool = False,
                 max_candidates: int = 12, max_suspects: int = 200) -> None:
        self.load = load  # the approved templates (read when a run first asks, not when the proposer is built)
        self.demoted = demoted
        self.max_candidates = max_candidates
        self.max_suspects = max_suspects

    def templates(self) -> list[MinedTemplate]:
        try:
            found = self.load()
        except Exception as e:  # the memory is an aid: a broken store means no templates, not a failed run
            log.warning("mined templates could not be read: %s: %s", type(e).__name__, e)
            return []
        return [t for t in found if t.status == "approved" and t.record.demoted == self.demoted]

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        templates = self.templates()
        if not templates:
            return
        by_file: dict[str, dict[int, tuple[Token, ...]]] = {}
        keys: set[object] = set()
        yielded = 0
        suspects = [s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)]
        for suspect in suspects[: self.max_suspects]:
            if suspect.path not in by_file:
                by_file[suspect.path] = {}
                for line, tokens in statements(ctx.sources[suspect.path]):
                    by_file[suspect.path].setdefault(line, tokens)  # the outermost statement of the line
            target = by_file[suspect.path].get(suspect.line)
            if not target:
                continue
            for template in templates:
                patch = self._patch(template, target, suspect.path, suspect.line, ctx)
                if patch is None or patch.key() in keys:
                    continue
                keys.add(patch.key())
                yield patch
                yielded += 1
                if yielded >= self.max_candidates:
                    return

    def _patch(self, template: MinedTemplate, target: tuple[Token, ...], path: str, line: int,
               ctx: ProposalContext) -> Patch | None:
        edits = apply_to(template, target)
        if not edits:
            return None
        before = ctx.sources[path]
        try:
            after = apply_edits(before, [TextEdit(*e) for e in edits])
        except ValueError:
            return None
        if after == before or not parses(after):
            return None
        summary = f"{path}:{line}: mined template {template.id}: {template.name}"
        return Patch((FileChange(path, before, after),), self.name, template.operator, summary,
                     {"template": template.id, "demoted": self.demoted})


def store_loader(store: MemoryStore) -> Callable[[], list[MinedTemplate]]:
    """The approved templates of a memory store, read once per run."""
    cache: list[list[MinedTemplate]] = []

    def load() -> list[MinedTemplate]:
        if not cache:
            from .registry import approved

            cache.append(approved(store))
        return cache[0]

    return load

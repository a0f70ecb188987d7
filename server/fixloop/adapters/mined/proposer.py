"""The engine's side: approved templates as a proposer.

At every suspect line whose statement has a template's before-window (edit form: anywhere in the
statement; statement form: the whole statement), the template's edit is made with this code's names.
Places are ranked by the run's localization (most suspicious first), and each template offers at most
`per_template` of them. `MinedTemplateProposer()` serves the templates that
keep working, ahead of the generic operators; `MinedTemplateProposer(demoted=True)` the ones that lost
their place, after them. Rejected and merely proposed templates are never used.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from fixloop.core.model import FileChange, Patch, Suspect
from fixloop.core.patch import TextEdit, apply_edits
from fixloop.core.ports import ProposalContext
from fixloop.kit.syntax import Offsets, parses
from fixloop.adapters.mined.match import matches
from fixloop.adapters.mined.model import MinedTemplate, apply_to
from fixloop.adapters.mined.signatures import Signatures
from fixloop.adapters.mined.view import View, statement_nodes, view_of

if TYPE_CHECKING:
    from tree_sitter import Node

    from fixloop.adapters.memory.store import MemoryStore

log = logging.getLogger("fixloop.adapters.mined")
# (rank key, template, path, line, character edits)
LOOSE_FACTOR = 0.8  # a CONST role bound to a lower-case name: the examples' kind of place comes first
Place = tuple[tuple[float, int, int, int, int], MinedTemplate, str, int, list[tuple[int, int, str]]]


class MinedTemplateProposer:
    name = "template"
    adaptive = False

    def __init__(self, load: Callable[[], Sequence[MinedTemplate]], demoted: bool = False,
                 max_candidates: int = 12, max_suspects: int = 200, per_template: int = 4) -> None:
        self.load = load  # the approved templates (read when a run first asks, not when the proposer is built)
        self.demoted = demoted
        self.max_candidates = max_candidates
        self.max_suspects = max_suspects
        self.per_template = per_template  # a template is a handful of candidates, not every place it matches

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
        found: list[Place] = []
        nodes: dict[str, dict[int, Node]] = {}
        offsets: dict[str, Offsets] = {}
        names = Signatures(ctx.sources)
        suspects = [s for s in ctx.suspects if s.path in ctx.sources and not ctx.is_test_file(s.path)]
        seen_lines: set[tuple[str, int]] = set()
        for rank, suspect in enumerate(suspects[: self.max_suspects]):
            path, source = suspect.path, ctx.sources[suspect.path]
            if (path, suspect.line) in seen_lines:
                continue
            seen_lines.add((path, suspect.line))
            if path not in nodes:
                nodes[path], offsets[path] = statement_nodes(source), Offsets(source)
            node = nodes[path].get(suspect.line)
            if node is None:
                continue
            try:
                found.extend(self._places(templates, view_of(node, source, offsets[path]), source, suspect, rank, names))
            except RecursionError:  # a statement nested past Python's stack: no template is worth the run
                log.warning("mined templates: %s:%d is nested too deeply to match; skipped", path, suspect.line)
        found.sort(key=lambda f: f[0])
        keys: set[object] = set()
        per_template: dict[str, int] = {}
        yielded = 0
        for _key, template, path, line, edits in found:
            if per_template.get(template.id, 0) >= self.per_template:
                continue
            patch = self._patch(template, edits, path, line, ctx)
            if patch is None or patch.key() in keys:
                continue
            keys.add(patch.key())
            per_template[template.id] = per_template.get(template.id, 0) + 1
            yield patch
            yielded += 1
            if yielded >= self.max_candidates:
                return

    def _places(self, templates: Sequence[MinedTemplate], view: View, source: str, suspect: Suspect, rank: int,
                names: Signatures) -> list[Place]:
        """Every place in one suspect statement where a template applies, with its rank key."""
        found: list[Place] = []
        path = suspect.path
        for index, template in enumerate(templates):
            if template.form == "statement":
                edits = apply_to(template, view.tokens)
                if edits:
                    found.append(((-suspect.score, 0, rank, index, 0), template, path, suspect.line, edits))
                continue
            for k, m in enumerate(matches(template, view, source)):
                # The run's localization ranks the places; the names at a call and a limit that is not a
                # named constant only nudge it (0.8x-1.25x), and a place like the examples' (the same kind
                # of node around it) breaks ties.
                score = suspect.score * (names.swap_factor(m.callee, m.position, m.moved) if m.callee else 1.0)
                score *= LOOSE_FACTOR if m.loose else 1.0
                miss = 2 * int(m.loose) + int(bool(template.contexts) and m.parent not in template.contexts)
                found.append(((-score, miss, rank, index, k), template, path, suspect.line, [(m.start, m.end, m.text)]))
        return found

    def _patch(self, template: MinedTemplate, edits: list[tuple[int, int, str]], path: str, line: int,
               ctx: ProposalContext) -> Patch | None:
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
            from fixloop.adapters.mined.registry import approved

            cache.append(approved(store))
        return cache[0]

    return load

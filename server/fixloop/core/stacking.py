"""Several faults, one run: the search goes on on top of a fix of some of the failing targets (pure).

A partial fix (core/selection.py: it passes some failing targets, and the others never run the code it
changes) becomes the base: the proposers start again on the sources with it made, for the targets it leaves
failing, and every candidate they make is judged with the base under it, on all the targets. A fix of a lint
finding and a fix of a failing test (or two unrelated bugs) are found in one run and offered as one change.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Iterator, Sequence

from fixloop.core.model import FileChange, Patch, Suspect
from fixloop.core.patch import Hunk, apply_hunks, hunks
from fixloop.core.ports import CallLogging, Noting, ProposalContext, Proposer

STACK_MAX = 3  # partial fixes built on in one run (a finding of each of two checkers and a failing test)


def on_top(base: Patch, patch: Patch) -> Patch:
    """`patch`, written against the sources with `base` made, as one change of the original sources."""
    before = {c.path: c.before for c in base.changes}
    after = {c.path: c.after for c in base.changes}
    for c in patch.changes:
        before.setdefault(c.path, c.before)
        after[c.path] = c.after
    changes = tuple(FileChange(path, before[path], after[path]) for path in after if after[path] != before[path])
    return _together(patch, changes, base)


class OnTop:
    """A proposer whose every candidate is made on top of `base`."""

    def __init__(self, inner: Proposer, base: Patch) -> None:
        self.inner = inner
        self.base = base
        self.name = inner.name
        self.adaptive = inner.adaptive

    @property
    def notes(self) -> list[str]:  # what the proposer has to say, said once (the loop clears this list)
        return self.inner.notes if isinstance(self.inner, Noting) else []

    def drain_calls(self) -> list[dict[str, object]]:
        return self.inner.drain_calls() if isinstance(self.inner, CallLogging) else []

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        for patch in self.inner.propose(ctx):
            yield on_top(self.base, patch)


def merged(base: Patch, other: Patch) -> Patch | None:
    """`other`'s changes made beside `base`'s (both of the original sources), or None when they overlap: two
    fixes of different failing targets found in one round become one candidate before any new search."""
    before = {c.path: c.before for c in base.changes} | {c.path: c.before for c in other.changes}
    mine: dict[str, list[Hunk]] = {}
    for c in (*base.changes, *other.changes):
        mine.setdefault(c.path, [])
        for h in hunks(c):
            if any((h.start, h.end, h.new_lines) == (g.start, g.end, g.new_lines) for g in mine[c.path]):
                continue  # the same change in both (a base of both)
            if any(h.start < max(g.end, g.start + 1) and g.start < max(h.end, h.start + 1) for g in mine[c.path]):
                return None
            mine[c.path].append(h)
    changes = tuple(FileChange(path, before[path], apply_hunks(before[path], found)) for path, found in mine.items())
    if {(c.path, c.after) for c in changes if c.after != c.before} == {(c.path, c.after) for c in base.changes}:
        return None  # nothing of `other` is new
    return _together(other, changes, base)


def _together(patch: Patch, changes: tuple[FileChange, ...], base: Patch) -> Patch:
    """`patch` (its proposer and operator) with `changes`, named by every fix in it, each once."""
    parts = tuple(dict.fromkeys((*_parts(patch), *_parts(base))))
    return replace(patch, changes=changes, summary="; ".join(parts), meta={**patch.meta, "parts": parts})


def _parts(patch: Patch) -> tuple[str, ...]:
    parts = patch.meta.get("parts")
    return tuple(parts) if isinstance(parts, tuple) else (patch.summary,)


class Merged:
    """The round's first candidates: the other fixes of some targets found before, beside the base."""

    name, adaptive = "stacking", False

    def __init__(self, base: Patch, others: Sequence[Patch]) -> None:
        self.base = base
        self.others = others

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        for other in self.others:
            patch = merged(self.base, other)
            if patch is not None:
                yield patch


def on_partial(ctx: ProposalContext, base: Patch, still: Sequence[str]) -> ProposalContext:
    """What the proposers see on top of `base`: its sources, the targets it leaves failing, the suspects moved
    with the lines it added or removed (those on lines it changed are its own, and go)."""
    sources = dict(ctx.sources)
    for c in base.changes:
        sources[c.path] = c.after
    suspects = tuple(s for s in (_moved(x, base) for x in ctx.suspects) if s is not None)
    return replace(ctx, sources=sources, target_tests=tuple(still), suspects=suspects)


def _moved(suspect: Suspect, base: Patch) -> Suspect | None:
    change = next((c for c in base.changes if c.path == suspect.path), None)
    if change is None:
        return suspect
    old, new = change.before.splitlines(), change.after.splitlines()
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if i1 < suspect.line <= i2:
            return replace(suspect, line=j1 + suspect.line - i1) if tag == "equal" else None
    return None

"""Hunk-by-hunk review, as pure functions: a proposal's hunks, where each lands in the text the
editor has now, the edits that apply them, and which hunks a document shows were taken."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import Hunk, apply_hunks, hunks
from fixloop.core.trust import FixKind

PENDING, ACCEPTED, REJECTED, CONFLICT = "pending", "accepted", "rejected", "conflict"


@dataclass
class HunkState:
    hunk: Hunk
    uri: str
    state: str = PENDING
    message: str = ""
    new_file: bool = False  # the hunk creates its file (goal mode's reproduction test)

    @property
    def id(self) -> str:
        return self.hunk.id

    def to_json(self) -> dict[str, Any]:
        h = self.hunk
        out: dict[str, Any] = {"id": h.id, "path": h.path, "uri": self.uri, "start_line": h.start, "end_line": h.end,
                               "old": "".join(h.old_lines), "new": "".join(h.new_lines), "state": self.state}
        if self.message:
            out["message"] = self.message
        if self.new_file:
            out["new_file"] = True
        return out


@dataclass
class Proposal:
    """A fix offered for review: the text each file had when the run saw it, and its hunks."""

    run_id: str
    before: dict[str, str]
    hunks: list[HunkState] = field(default_factory=list)
    kind: FixKind | None = None  # what a trust grant would cover (core/trust.py); None: never without asking

    def get(self, ids: Iterable[str] | None, states: tuple[str, ...]) -> tuple[list[HunkState], list[str]]:
        """The hunks named by `ids` (or, with none, all in `states`), and the ids that are unknown."""
        if ids is None:
            return [h for h in self.hunks if h.state in states], []
        by_id = {h.id: h for h in self.hunks}
        wanted = list(dict.fromkeys(ids))
        return [by_id[i] for i in wanted if i in by_id], [i for i in wanted if i not in by_id]

    def part(self, chosen: Sequence[HunkState], operator: str) -> Patch:
        """The part of the fix that `chosen` hunks make, on the texts the run saw (what the memory and the
        user's on_apply hook are told was accepted or applied)."""
        by_path: dict[str, list[Hunk]] = {}
        for h in chosen:
            by_path.setdefault(h.hunk.path, []).append(h.hunk)
        return Patch(tuple(FileChange(path, self.before[path], apply_hunks(self.before[path], hs))
                           for path, hs in by_path.items()), "review", operator)


def proposal_from(run_id: str, patch: Patch, uri_of: Callable[[str], str]) -> Proposal:
    proposal = Proposal(run_id, {c.path: c.before for c in patch.changes})
    created = set(patch.meta.get("new_files", ()))
    for change in patch.changes:
        proposal.hunks.extend(HunkState(h, uri_of(change.path), new_file=change.path in created)
                              for h in hunks(change))
    return proposal


@dataclass(frozen=True)
class Placed:
    """A hunk placed in the current text: lines [start, start + len(old_lines)) are replaced."""

    start: int
    hunk: Hunk


def place(before: str, current: str, chosen: Sequence[Hunk]) -> tuple[list[Placed], dict[str, str]]:
    """Where each hunk lands in `current`; hunks whose lines were edited since are conflicts."""
    lines = current.splitlines(keepends=True)
    placed: list[Placed] = []
    conflicts: dict[str, str] = {}
    if current == before:
        placed = [Placed(h.start, h) for h in chosen]
    else:
        old = before.splitlines(keepends=True)
        for h in chosen:
            spot = _locate(h, old, lines)
            if isinstance(spot, str):
                conflicts[h.id] = spot
            else:
                placed.append(Placed(spot, h))
    placed.sort(key=lambda p: p.start)
    kept: list[Placed] = []
    end = 0
    for p in placed:
        if p.start < end:
            conflicts[p.hunk.id] = f"{p.hunk.id}: overlaps another change after your edits; not applied"
            continue
        kept.append(p)
        end = p.start + len(p.hunk.old_lines)
    return kept, conflicts


def _locate(h: Hunk, old: list[str], lines: list[str]) -> int | str:
    if h.old_lines:
        width = len(h.old_lines)
        spots = [i for i in range(len(lines) - width + 1) if tuple(lines[i:i + width]) == h.old_lines]
        if len(spots) == 1:
            return spots[0]
        if not spots:
            return (f"{h.id}: the lines it replaces (line {h.start + 1}) were edited since the run; "
                    "not applied, the proposal is kept")
        return f"{h.id}: the lines it replaces now occur {len(spots)} times; not applied, the proposal is kept"
    if h.start == 0:
        return 0
    anchor = old[h.start - 1] if h.start - 1 < len(old) else None
    spots = [i + 1 for i, line in enumerate(lines) if line == anchor]
    if len(spots) == 1:
        return spots[0]
    return f"{h.id}: the place of this insertion (after line {h.start}) is no longer unique; not applied"


def taken(base: str, current: str, placed: Sequence[Placed]) -> dict[str, bool | None]:
    """Which placed hunks `current` shows applied to `base`: True, False, or None (cannot tell:
    the user changed those lines too). Walks the hunks in order, tracking the line shift."""
    lines = current.splitlines(keepends=True)
    out: dict[str, bool | None] = {}
    shift = 0
    for p in sorted(placed, key=lambda p: p.start):
        h = p.hunk
        at = p.start + shift
        has_old = tuple(lines[at:at + len(h.old_lines)]) == h.old_lines
        has_new = tuple(lines[at:at + len(h.new_lines)]) == h.new_lines
        if len(h.new_lines) > len(h.old_lines):  # the longer side first: it cannot match by accident
            verdict: bool | None = True if has_new else (False if has_old else None)
        else:
            verdict = False if (has_old and h.old_lines) else (True if has_new else None)
            if not h.old_lines and not has_new:
                verdict = False
        out[h.id] = verdict
        if verdict:
            shift += len(h.new_lines) - len(h.old_lines)
    return out


def summary_hunks(states: Iterable[HunkState]) -> list[dict[str, Any]]:
    return [h.to_json() for h in states]

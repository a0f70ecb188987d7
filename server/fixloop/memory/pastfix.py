"""Memory warnings that carry their fix: the past fix of a statement shape, re-made at this statement.

`patterns_in` warns where code repeats the faulty statement shape of fixed failures. Each warning gets
that shape's latest fix transferred here with this code's names (the token transfer memory replay uses,
`shapes.transfer`): the statement's lines before and after, and a unified diff of this file. A fix that
cannot be re-made here (its stored edit cannot be read, the edited tokens have no counterpart, the
result does not parse) still warns, with the reason and the past fix as it was made, and nothing to apply.
Pure functions, except `FixDetails`, which reads the stored edits of the fixes a document needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from ..core.model import FileChange, Patch, PatternHit
from ..core.patch import TextEdit, apply_edits, unified_diff
from ..repair.syntax import parses
from .shapes import Token, parse_edits, shape_of, statements, transfer
from .store import where_in

if TYPE_CHECKING:
    from .store import MemoryStore

MAX_CACHED_DETAILS = 2_000


@dataclass(frozen=True)
class KnownFix:
    """One faulty statement shape of a project: how many fixed failures had it, and its latest fix."""

    count: int
    summary: str
    fix_id: str
    run_id: str = ""


@dataclass(frozen=True)
class FixDetail:
    edit: str  # the fixed statements' tokens before and after, as stored (JSON)
    diff: str  # the past fix where it was made


Details = Callable[[Sequence[KnownFix]], Mapping[str, FixDetail]]


def hits_in(path: str, source: str, table: Mapping[str, KnownFix], details: Details) -> list[PatternHit]:
    """The statements of `source` whose shape is in `table`, each with its past fix transferred."""
    found = [(line, tokens, table[shape]) for line, tokens in statements(source) if (shape := shape_of(tokens)) in table]
    if not found:
        return []
    known = details(list({fix.fix_id: fix for _, _, fix in found}.values()))
    starts = [0] + [i + 1 for i, ch in enumerate(source) if ch == "\n"]
    hits: list[PatternHit] = []
    for line, tokens, fix in found:
        end = tokens[-1].end
        end_line = source.count("\n", 0, end) + 1
        lines = (starts[line - 1], starts[end_line] if end_line < len(starts) else len(source))
        detail = known.get(fix.fix_id)
        if detail is None:
            before, after, diff, problem = source[lines[0]:lines[1]], None, "", "the past fix is no longer stored"
        else:
            before, after, diff, problem = transferred(path, source, lines, tokens, detail)
        hits.append(PatternHit(path, line, tokens[0].start - starts[line - 1], end_line, end - starts[end_line - 1],
                               shape_of(tokens), fix.count, fix.summary, fix.fix_id, before, after, diff, problem))
    return hits


def transferred(path: str, source: str, lines: tuple[int, int], tokens: Sequence[Token],
                detail: FixDetail) -> tuple[str, str | None, str, str]:
    """(the statement's lines, those lines with the past fix re-made, the diff, why not) for the statement
    `tokens` of `source`, whose lines are the characters [lines[0], lines[1])."""
    lo, hi = lines
    before = source[lo:hi]

    def refused(why: str) -> tuple[str, str | None, str, str]:
        return before, None, detail.diff, why

    try:
        edits = parse_edits(detail.edit)
    except ValueError as e:
        return refused(f"the past fix cannot be applied here: {e}")
    shape = shape_of(tokens)
    edit = next((e for e in edits if e.fault_shape == shape), None)
    if edit is None:
        return refused("the past fix cannot be applied here: it holds no edit of this statement's shape")
    changes = transfer(edit, tokens)
    if not changes:
        return refused("the past fix cannot be applied here: what it changed has no counterpart in this statement")
    if any(start < lo or end > hi for start, end, _ in changes):
        return refused("the past fix cannot be applied here: it reaches beyond this statement's lines")
    try:
        fixed = apply_edits(source, [TextEdit(*c) for c in changes])
    except ValueError as e:
        return refused(f"the past fix cannot be applied here: {e}")
    after = fixed[lo:len(fixed) - (len(source) - hi)]
    if after == before:
        return refused("the past fix changes nothing here")
    if not parses(fixed) and parses(source):
        return refused("the past fix cannot be applied here: the result would not parse")
    return before, after, unified_diff(Patch((FileChange(path, source, fixed),), "memory", "replay")), ""


class FixDetails:
    """The stored edit and diff of fixes, read from the store when a document first needs them (a fix
    row never changes, so they are kept; a forgotten fix simply stops being asked for)."""

    def __init__(self, store: "MemoryStore") -> None:
        self.store = store
        self._cache: dict[str, FixDetail] = {}

    def __call__(self, fixes: Sequence[KnownFix]) -> dict[str, FixDetail]:
        missing = [f for f in fixes if f.fix_id not in self._cache]
        if missing:
            if len(self._cache) > MAX_CACHED_DETAILS:
                self._cache.clear()
            rows = self.store.rows("fixes", where_in("id", [f.fix_id for f in missing]), ["id", "run_id", "edit", "diff"])
            # Only the first fix row of a run keeps the diff; the others (one per failing test) point to it.
            runs = {r["run_id"] for r in rows if not r["diff"]}
            diffs = {r["run_id"]: r["diff"] for r in self.store.rows(
                "fixes", where_in("run_id", runs) + " AND diff != ''", ["run_id", "diff"])} if runs else {}
            for r in rows:
                self._cache[r["id"]] = FixDetail(r["edit"] or "", r["diff"] or diffs.get(r["run_id"], ""))
        return {f.fix_id: self._cache[f.fix_id] for f in fixes if f.fix_id in self._cache}

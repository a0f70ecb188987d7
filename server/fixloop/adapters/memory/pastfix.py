"""Memory warnings that carry their fix: the past fix of a statement shape, re-made at this statement.

`patterns_in` warns where code repeats the faulty statement shape of fixed failures. Each warning gets
that shape's latest fix transferred here with this code's names (the token transfer memory replay uses,
`shapes.transfer`): the statement's lines before and after, and a unified diff of this file. A fix that
cannot be re-made here (its stored edit cannot be read, the edited tokens have no counterpart, the
result does not parse) still warns, with the reason and the past fix as it was made, and nothing to apply.
Pure functions, except `FixDetails`, which reads the stored edits of the fixes a document needs.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from fixloop.core.model import FileChange, Patch, PatternHit
from fixloop.core.patch import HUNK_HEADER, TextEdit, apply_edits, unified_diff
from fixloop.kit.syntax import parse
from fixloop.kit.treesitter import parser
from fixloop.kit.shapes import Token, parse_edits, shape_of, statements, transfer
from fixloop.adapters.memory.store import where_in

if TYPE_CHECKING:
    from tree_sitter import Tree

    from fixloop.adapters.memory.store import MemoryStore

MAX_CACHED_DETAILS = 2_000
MAX_REMADE = 4_096  # statements whose re-made fix is kept between checks of a document
_REMADE: dict[tuple[object, ...], tuple[str | None, str]] = {}
_LOCK = threading.Lock()  # the language server checks documents on worker threads
CONTEXT = 3  # lines of context in a diff, as `core.patch.unified_diff` makes them


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
    doc = _Document(path, source)
    hits: list[PatternHit] = []
    for line, tokens, fix in found:
        end = tokens[-1].end
        end_line = source.count("\n", 0, end) + 1
        detail = known.get(fix.fix_id)
        if detail is None:
            before, after, diff, problem = doc.lines(line, end_line), None, "", "the past fix is no longer stored"
        else:
            before, after, diff, problem = transferred(doc, line, end_line, tokens, detail)
        hits.append(PatternHit(path, line, tokens[0].start - doc.starts[line - 1], end_line,
                               end - doc.starts[end_line - 1], shape_of(tokens), fix.count, fix.summary, fix.fix_id,
                               before, after, diff, problem))
    return hits


class _Document:
    """The text being warned about, with what every transfer onto it needs computed once."""

    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.source = source
        self.starts = [0] + [i + 1 for i, ch in enumerate(source) if ch == "\n"]
        self._tree: Tree | None = None

    def span(self, line: int, end_line: int) -> tuple[int, int]:
        """Characters [start, end) of lines `line`..`end_line` (1-based, inclusive, with their line ends)."""
        return self.starts[line - 1], self.starts[end_line] if end_line < len(self.starts) else len(self.source)

    def lines(self, line: int, end_line: int) -> str:
        lo, hi = self.span(line, end_line)
        return self.source[lo:hi]

    def parses_with(self, lo: int, hi: int, new: str) -> bool:
        """Whether the source with characters [lo, hi) replaced by `new` parses, or already did not: an
        incremental re-parse of the one edited region, not of the whole file per warning."""
        if self._tree is None:
            self._tree = parse(self.source)
        if self._tree.root_node.has_error:
            return True  # the user is mid-edit: the fix is not what breaks it
        old = self.source[lo:hi]
        # The smallest edited region: tree-sitter re-parses only around it (a whole edited line costs a full parse).
        head = len(os.path.commonprefix([old, new]))
        tail = len(os.path.commonprefix([old[head:][::-1], new[head:][::-1]]))
        lo, hi, new = lo + head, hi - tail, new[head:len(new) - tail]
        start, old_end = len(self.source[:lo].encode()), len(self.source[:hi].encode())
        fixed = (self.source[:lo] + new + self.source[hi:]).encode()
        new_end = start + len(new.encode())
        tree = self._tree.copy()
        tree.edit(start, old_end, new_end, _point(fixed, start), _point(self.source.encode(), old_end),
                  _point(fixed, new_end))
        return not parser().parse(fixed, tree).root_node.has_error

    def diff(self, line: int, end_line: int, after: str) -> str:
        """The unified diff of replacing lines `line`..`end_line` by `after`, made on a window around them
        (the same text as a diff of the whole file, in a fraction of the time)."""
        all_lines = self.source.splitlines(keepends=True)
        lo, hi = max(0, line - 1 - CONTEXT), min(len(all_lines), end_line + CONTEXT)
        old = "".join(all_lines[lo:hi])
        new = "".join(all_lines[lo:line - 1]) + after + "".join(all_lines[end_line:hi])
        text = unified_diff(Patch((FileChange(self.path, old, new),), "memory", "replay"), CONTEXT)
        return HUNK_HEADER.sub(lambda m: f"@@ -{int(m[1]) + lo}{_length(m[2])} +{int(m[3]) + lo}{_length(m[4])} @@", text)


def _length(group: str | None) -> str:
    return f",{group}" if group is not None else ""


def _point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def transferred(doc: _Document, line: int, end_line: int, tokens: Sequence[Token],
                detail: FixDetail) -> tuple[str, str | None, str, str]:
    """(the statement's lines, those lines with the past fix re-made, the diff, why not) for the statement
    `tokens` of the document, on lines `line`..`end_line`."""
    lo, hi = doc.span(line, end_line)
    before = doc.source[lo:hi]
    # Typing changes a statement or two: the others' fixes were made on the last check. Whether a re-made
    # statement parses is taken to depend on the statement alone (a file never parses whole per warning).
    key = (detail.edit, before, tuple((t.shape, t.text, t.gap, t.start - lo, t.end - lo) for t in tokens))
    with _LOCK:
        made = _REMADE.get(key)
    if made is None:
        made = _remake(doc, lo, hi, tokens, detail)
        with _LOCK:
            if len(_REMADE) >= MAX_REMADE:
                _REMADE.clear()
            _REMADE[key] = made
    after, problem = made
    if after is None:
        return before, None, detail.diff, problem
    return before, after, doc.diff(line, end_line, after), ""


def _remake(doc: _Document, lo: int, hi: int, tokens: Sequence[Token], detail: FixDetail) -> tuple[str | None, str]:
    """Characters [lo, hi) of the document (the statement `tokens` on its lines) with the past fix re-made,
    or None and why not."""
    try:
        edits = parse_edits(detail.edit)
    except ValueError as e:
        return None, f"the past fix cannot be applied here: {e}"
    shape = shape_of(tokens)
    edit = next((e for e in edits if e.fault_shape == shape), None)
    if edit is None:
        return None, "the past fix cannot be applied here: it holds no edit of this statement's shape"
    changes = transfer(edit, tokens)
    if not changes:
        return None, "the past fix cannot be applied here: what it changed has no counterpart in this statement"
    if any(start < lo or end > hi for start, end, _ in changes):
        return None, "the past fix cannot be applied here: it reaches beyond this statement's lines"
    before = doc.source[lo:hi]
    try:
        after = apply_edits(before, [TextEdit(start - lo, end - lo, text) for start, end, text in changes])
    except ValueError as e:
        return None, f"the past fix cannot be applied here: {e}"
    if after == before:
        return None, "the past fix changes nothing here"
    if not doc.parses_with(lo, hi, after):
        return None, "the past fix cannot be applied here: the result would not parse"
    return after, ""


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

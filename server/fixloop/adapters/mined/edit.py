"""The edit of a fix, cut down to the smallest piece of the statement that identifies it.

A fix's statement is re-read by tree-sitter; the window is the smallest expression-level node covering
the changed tokens (before and after), so `return item.on_hand < REORDER_AT` -> `<=` and
`if rider.age > SENIOR_AGE:` -> `>=` both become the comparison `HOLE < CONST` -> `HOLE <= CONST`, and what
the rest of the statement says does not decide whether two fixes share a template. In the window:
- an unchanged sub-expression is a hole (`_1`: binds any whole node), and so is an unchanged name or
  literal that does not touch the change; a name next to the change keeps a role (ID, or CONST for an
  upper-case "named limit"; NUM, STR for literals), builtins (`range`, `len`) and syntax stay as text;
- a strict comparison becoming non-strict (or the reverse, or `==`/`!=`, `and`/`or`, `is`/`is not`) is
  one family token: `<|>` -> `<=|>=`, so `<` -> `<=` and `>` -> `>=` are the same edit;
- numbers and names that only the fix has (`+ 1`, `extend`) stay as their text;
- two neighbouring arguments exchanged (`f(a, b)` -> `f(b, a)`) is the window `_1 , _2` -> `_2 , _1`
  inside any argument list, whatever the callee and the other arguments.
Examples of one group are anti-unified: where they agree the template keeps it, where they differ it
generalises (CONST and ID give ID; a role and a hole give a hole).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from fixloop.core.patch import common_ends
from fixloop.kit.shapes import StatementEdit, code_of
from fixloop.adapters.mined.view import View, ancestors, view_of_code

FAMILIES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("<", ">"), ("<=", ">=")),  # a strict comparison becomes non-strict, same direction
    (("<=", ">="), ("<", ">")),
    (("==", "!="), ("!=", "==")),
    (("and", "or"), ("or", "and")),
    (("is", "is not"), ("is not", "is")),
    (("in", "not in"), ("not in", "in")),
)
# Nodes too small to say where an edit is: the window grows to their parent (the call, not its arguments).
_CLIMB = frozenset({"argument_list", "parenthesized_expression", "expression_list", "keyword_argument",
                    "pattern_list", "generator_expression", "subscript_argument"})
_CONST = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
MIN_WINDOW = 3


@dataclass(frozen=True)
class Slot:
    kind: str  # "text", "ops" (family), "ID", "CONST", "NUM", "STR", "HOLE"
    value: str  # the text (text, ops: "<|>"), or the bound text (roles, holes), for grouping
    gap: str
    var: int = -1  # roles and holes: the variable number (same text, same variable)


@dataclass(frozen=True)
class Window:
    """One fix's abstract edit: the before- and after-window as slots, where it sits, and its key."""

    before: tuple[Slot, ...]
    after: tuple[Slot, ...]
    within: str  # the node type the window is (span "node") or sits in (span "children")
    span: str
    parent: str  # the node type around the window, for ranking matches

    @property
    def key(self) -> str:
        def sk(slots: tuple[Slot, ...]) -> list[str]:
            return [f"V{s.var}" if s.var >= 0 else f"{s.kind}:{s.value}" for s in slots]
        return json.dumps([self.within, self.span, sk(self.before), sk(self.after)])


def _family(old: str, new: str) -> tuple[str, str] | None:
    for olds, news in FAMILIES:
        if old in olds and news[olds.index(old)] == new:
            return "|".join(olds), "|".join(news)
    return None


def window_of(edit: StatementEdit) -> Window | None:
    """The abstract edit of one fixed statement, or None when it cannot be read back or says nothing."""
    vb, va = view_of_code(code_of(edit.before)), view_of_code(code_of(edit.after))
    if vb is None or va is None:
        return None
    ta, tb = [t.text for t in vb.tokens], [t.text for t in va.tokens]
    if ta != [t.text for t in edit.before] or tb != [t.text for t in edit.after] or ta == tb:
        return None
    p, s = common_ends(ta, tb)
    nb, na = len(ta), len(tb)
    swapped = _swap(vb, ta, tb, p, nb - s)
    if swapped is not None:
        return swapped
    lo, hi = nb, 0
    if nb - s > p:
        k = vb.smallest(p, nb - s)
        lo, hi = vb.spans[k].start, vb.spans[k].end
    if na - s > p:
        k = va.smallest(p, na - s)
        a0, a1 = va.spans[k].start, va.spans[k].end
        lo = min(lo, a0 if a0 < p else p)
        hi = max(hi, a1 - na + nb if a1 > na - s else nb - s)
    if hi <= lo:
        return None
    anchor = vb.smallest(lo, hi)
    for k in ancestors(vb, anchor):
        span = vb.spans[k]
        anchor = k
        if not span.leaf and span.type not in _CLIMB and span.end - span.start >= MIN_WINDOW:
            break
    a = vb.spans[anchor]
    parent = vb.spans[a.parent].type if a.parent >= 0 else ""
    return _abstract(vb, va, anchor, p, nb - s, na - s, a.type, "node", parent)


def _swap(vb: View, ta: list[str], tb: list[str], p: int, end: int) -> Window | None:
    """Two neighbouring arguments exchanged: `_1 , _2` -> `_2 , _1` in an argument list."""
    if end <= p:
        return None
    k = vb.smallest(p, end)
    if vb.spans[k].type != "argument_list":
        return None
    kids = [c for c in vb.children(k) if vb.spans[c].named]
    for x, y in zip(kids, kids[1:]):
        sx, sy = vb.spans[x], vb.spans[y]
        if not (sx.start <= p and end <= sy.end) or ta[sx.end:sy.start] != [","] or {
                sx.type, sy.type} & {"keyword_argument", "list_splat", "dictionary_splat"}:
            continue  # (keyword arguments exchanged are the same call: the fix was something else)
        exchanged = ta[:sx.start] + ta[sy.start:sy.end] + [","] + ta[sx.start:sx.end] + ta[sy.end:]
        if exchanged == tb and ta[sx.start:sx.end] != ta[sy.start:sy.end]:
            gap = vb.tokens[sy.start].gap
            first, second = Slot("HOLE", "a", "", 0), Slot("HOLE", "b", gap, 1)
            comma = Slot("text", ",", "")
            call = vb.spans[k].parent  # the context of a swap is what holds the call, not the call
            parent = vb.spans[vb.spans[call].parent].type if call >= 0 and vb.spans[call].parent >= 0 else ""
            return Window((first, comma, second), (Slot("HOLE", "b", "", 1), comma, Slot("HOLE", "a", gap, 0)),
                          "argument_list", "children", parent)
    return None


def _abstract(vb: View, va: View, anchor: int, p: int, b_end: int, a_end: int, within: str, span: str,
              parent: str) -> Window | None:
    a = vb.spans[anchor]
    lo, hi = a.start, a.end
    changed = range(p, b_end)
    variables: dict[str, int] = {}

    def var(text: str) -> int:
        return variables.setdefault(text, len(variables))

    def touches(start: int, end: int) -> bool:
        if b_end > p:
            return start < b_end and p < end
        return start < p < end  # a pure insertion at p: only a node around p is changed

    moved = {t.text for t in va.tokens[p:a_end]}
    slots: dict[int, tuple[Slot, int]] = {}  # first token index -> (slot, tokens it covers)

    def leaf_slot(i: int) -> Slot:
        t = vb.tokens[i]
        gap = t.gap if i > lo else ""
        if t.shape in ("ID", "NUM", "STR"):
            near = i in changed or i == p - 1 or i == b_end
            if not near:
                return Slot("HOLE", t.text, gap, var("\0" + t.text))
            if t.shape == "ID":
                if i in changed and t.text not in moved:
                    return Slot("text", t.text, gap)  # the name the fix replaces is part of the edit
                return Slot("CONST" if _CONST.match(t.text) else "ID", t.text, gap, var(t.text))
            if i in changed:
                return Slot("text", t.text, gap)  # a literal the fix changes: the edit is that literal
            return Slot(t.shape, t.text, gap, var(t.text))
        return Slot("text", t.text, gap)

    def visit(k: int) -> None:
        s = vb.spans[k]
        if s.leaf:
            slots[s.start] = (leaf_slot(s.start), 1)
        elif not touches(s.start, s.end) and s.named:
            slots[s.start] = (Slot("HOLE", " ".join(t.text for t in vb.tokens[s.start:s.end]),
                                   vb.tokens[s.start].gap if s.start > lo else "",
                                   var("\0" + " ".join(t.text for t in vb.tokens[s.start:s.end]))), s.end - s.start)
        else:
            for c in vb.children(k):
                visit(c)

    visit(anchor)
    before: list[Slot] = []
    i = lo
    while i < hi:
        if i not in slots:
            return None
        slot, width = slots[i]
        before.append(slot)
        i += width
    # The after-window: the same slots outside the change, the fix's own tokens inside it.
    old_ops = [vb.tokens[i].text for i in changed]
    new_ops = [t.text for t in va.tokens[p:a_end]]
    family = _family(" ".join(old_ops), " ".join(new_ops)) if old_ops and new_ops else None
    by_text = {sl.value: sl for sl in before if sl.kind in ("ID", "CONST")}
    after: list[Slot] = []
    prefix = [sl for sl, _w in (slots[j] for j in sorted(slots) if j < p)]
    suffix = [sl for sl, _w in (slots[j] for j in sorted(slots) if j >= b_end and j >= p)]
    if family is not None:
        before = prefix + [Slot("ops", family[0], vb.tokens[p].gap if p > lo else "")] + suffix
        after = prefix + [Slot("ops", family[1], va.tokens[p].gap if p > lo else "")] + suffix
    else:
        middle = []
        for j in range(p, a_end):
            t = va.tokens[j]
            gap = t.gap if j > lo else ""
            if t.shape == "ID" and t.text in by_text:
                ref = by_text[t.text]
                middle.append(Slot(ref.kind, ref.value, gap, ref.var))
            else:
                middle.append(Slot("text", t.text, gap))
        after = prefix + middle + suffix
    if len([s for s in before if s.kind != "HOLE"]) < 1 or before == after:
        return None
    return Window(tuple(before), tuple(after), within, span, parent)


def generalise(windows: list[Window]) -> Window:
    """One window for a group (same key): where the examples' bindings agree in kind it stays, where
    they differ it generalises (CONST+ID -> ID, any other mix -> a hole)."""
    first = windows[0]
    kinds: dict[int, set[str]] = {}
    for w in windows:
        for sl in w.before:
            if sl.var >= 0:
                kinds.setdefault(sl.var, set()).add(sl.kind)
    joined: dict[int, str] = {}
    for v, ks in kinds.items():
        if len(ks) == 1:
            joined[v] = next(iter(ks))
        elif ks <= {"ID", "CONST"}:
            joined[v] = "ID"
        else:
            joined[v] = "HOLE"

    def rewrite(slots: tuple[Slot, ...]) -> tuple[Slot, ...]:
        return tuple(Slot(joined[s.var], s.value, s.gap, s.var) if s.var >= 0 else s for s in slots)

    return Window(rewrite(first.before), rewrite(first.after), first.within, first.span, first.parent)

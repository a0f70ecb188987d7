"""What an analogy keeps of a past fix besides its structure: operator families, and the counterpart of a
name the fix brought in (`low` -> `high` in one project; `self.low` -> `self.high` in another).

Pure functions over strings: no tree, no store.
"""

from __future__ import annotations

import difflib
import re
from typing import Sequence

# Operators and names a fix may exchange for one of the same family; a fix's exchange carries over
# only within its family (a comparison fix to a comparison, `min`/`max` to a call of `min`/`max`).
_ORDERING = {"<": ("lt", True), "<=": ("lt", False), ">": ("gt", True), ">=": ("gt", False)}
_BY_ORDER = {v: k for k, v in _ORDERING.items()}
FAMILIES: tuple[frozenset[str], ...] = (
    frozenset(_ORDERING) | {"==", "!="},
    frozenset({"+", "-"}), frozenset({"*", "/", "//"}), frozenset({"+=", "-="}), frozenset({"*=", "/=", "//="}),
    frozenset({"and", "or"}), frozenset({"min", "max"}), frozenset({"any", "all"}),
    frozenset({"True", "False"}), frozenset({"is", "is not"}), frozenset({"in", "not in"}),
)
EXACT, MIRRORED, INVERSE, RELATED = 1.0, 0.9, 0.6, 0.5  # how sure a carried-over exchange is

# Words whose opposite is the usual fix for a wrong one (`low` where `high` was meant). General
# vocabulary, not any project's: used only when the past fix itself exchanged such a pair.
_OPPOSITES = (("low", "high"), ("lo", "hi"), ("min", "max"), ("minimum", "maximum"), ("start", "end"),
              ("first", "last"), ("begin", "end"), ("left", "right"), ("top", "bottom"), ("width", "height"),
              ("lower", "upper"), ("small", "large"), ("old", "new"), ("before", "after"), ("head", "tail"),
              ("x", "y"), ("src", "dst"), ("floor", "ceiling"), ("open", "close"), ("row", "col"),
              ("rows", "cols"), ("inner", "outer"), ("prev", "next"), ("lowest", "highest"), ("from", "to"))
OPPOSITE = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
BESIDE = 0.3  # how sure a name declared beside the replaced one is, when nothing else names the fix's
LIKE = 0.6  # how like the fix's name a sibling must be to stand in for it when no name is made the fix's way
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def family_of(op: str) -> frozenset[str] | None:
    return next((f for f in FAMILIES if op in f), None)


def carry_over(old: str, new: str, here: str) -> list[tuple[str, float]]:
    """What a past exchange `old` -> `new` becomes at an operator `here` of the same family, best first:
    the same exchange, its mirror image (`>`->`>=` at a `<` is `<`->`<=`), the reverse exchange, or for
    an ordering the same change of direction and strictness."""
    family = family_of(old)
    if family is None or new not in family or here not in family or old == new:
        return []
    out: list[tuple[str, float]] = []
    if here == old:
        out.append((new, EXACT))
    if old in _ORDERING and new in _ORDERING and here in _ORDERING:
        (d_old, s_old), (d_new, s_new), (d_here, s_here) = _ORDERING[old], _ORDERING[new], _ORDERING[here]
        flip, toggle = d_old != d_new, s_old != s_new
        d_out = ("gt" if d_here == "lt" else "lt") if flip else d_here
        changed = _BY_ORDER[(d_out, (not s_here) if toggle else s_here)]
        mirrored = d_here != d_old and s_here == s_old
        if here != old:
            out.append((changed, MIRRORED if mirrored else RELATED))
    elif here == new:
        out.append((old, INVERSE))
    seen: dict[str, float] = {}
    for op, score in out:
        if op != here:
            seen[op] = max(score, seen.get(op, 0.0))
    return sorted(seen.items(), key=lambda item: -item[1])


def words(name: str) -> list[str]:
    return [w.lower() for part in name.split("_") for w in _WORD.findall(part)]


def _replace_word(name: str, old: str, new: str) -> str | None:
    """`name` with its word `old` made `new`, keeping the separators (`min_height` -> `max_height`)."""
    parts = re.split(r"(_)", name)
    hit = False
    for i, part in enumerate(parts):
        if part.lower() == old:
            parts[i] = new.upper() if part.isupper() and len(part) > 1 else new
            hit = True
    return "".join(parts) if hit else None


def derived_names(was: str, became: str, here: str) -> list[str]:
    """Names for `here` made the way the past fix made `became` from `was` (last segments of dotted
    names): the same name when `here` is `was`, the same word exchanged inside a longer name, an
    opposite word when the past fix exchanged opposites."""
    out: list[str] = []
    if here == was:
        out.append(became)
    if was and was in here and was != here:
        out.append(here.replace(was, became))
    w_was, w_became = words(was), words(became)
    if len(w_was) == len(w_became):
        for a, b in zip(w_was, w_became):
            if a != b:
                renamed = _replace_word(here, a, b)
                if renamed:
                    out.append(renamed)
    if OPPOSITE.get(was.lower()) == became.lower() or any(OPPOSITE.get(a) == b for a, b in zip(w_was, w_became)):
        for word in words(here):
            if word in OPPOSITE:
                renamed = _replace_word(here, word, OPPOSITE[word])
                if renamed:
                    out.append(renamed)
    return list(dict.fromkeys(n for n in out if n and n.isidentifier()))


def counterparts(was: str, became: str, here: str, in_scope: Sequence[str], limit: int = 2) -> list[tuple[str, float]]:
    """The expression that plays `became`'s role here, where `was` plays the role of `here`: `low` ->
    `high` with `low` ~ `self.low` gives `self.high`. Only names in scope (`in_scope`, dotted as used in
    the file) are offered: a name the target never binds would only fail. Best first, with a confidence."""
    base, _, last = here.rpartition(".")
    prefix = base + "." if base else ""
    _, _, was_last = was.rpartition(".")
    _, _, became_last = became.rpartition(".")
    scope = [n for n in dict.fromkeys(in_scope) if n != here and n.rpartition(".")[0] == base]
    out: list[tuple[str, float]] = []
    for name in derived_names(was_last, became_last, last):
        if prefix + name in scope:
            out.append((prefix + name, 1.0))
    if not out and base:  # no name made the fix's way: the attribute of the same object most like it
        liked = sorted(scope, key=lambda n: -_likeness(n.rpartition(".")[2], became_last))
        out = [(n, 0.4 * _likeness(n.rpartition(".")[2], became_last)) for n in liked[:limit]]
        out = [(n, s) for n, s in out if s >= 0.4 * LIKE]
    if not out:
        out = [(n, BESIDE) for n in beside(here, in_scope)]
    return out[:limit]


def beside(here: str, in_scope: Sequence[str]) -> list[str]:
    """The names of `here`'s kind (attributes of the same object, or plain names) that come right after and
    right before it where the code first uses them: bounds, ends and pairs are declared together (`quiet`,
    `loud`; `floor`, `ceiling`), so a fix that brought in an unrelated-looking name most often took the
    one declared beside the name it replaced."""
    base = here.rpartition(".")[0]
    kind = [n for n in dict.fromkeys(in_scope) if n.rpartition(".")[0] == base]
    if here not in kind:
        return []
    at = kind.index(here)
    return [kind[i] for i in (at + 1, at - 1) if 0 <= i < len(kind)]


def _likeness(a: str, b: str) -> float:
    shared = set(words(a)) & set(words(b))
    return max(difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio(), 1.0 if shared else 0.0)

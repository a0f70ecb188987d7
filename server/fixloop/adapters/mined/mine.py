"""Mining: the abstract edits that verified fixes made more than once, as proposed templates.

The rules (README, "Mined templates"):
- Only verified fixes (they passed the whole suite) that changed exactly one statement count: an edit
  that only worked together with another is not a template on its own. A fix the developer rejected in
  review does not count; one they accepted is counted as `accepted`.
- Support is the number of distinct places (project, file, statement text) a fix made the edit: one bug
  fixed again and again is one place. A template needs `min_support` places (2 by default).
- The before-statement needs `min_tokens` tokens (3): `return ID` -> anything is no pattern.
- What is grouped is the edit's window (edit.py): the smallest node around the change, with unchanged
  sub-expressions as holes, so the rest of the statement does not keep two fixes apart. A group's
  examples are anti-unified: what they agree on stays, what differs becomes more general.
- An after-window may only use the before-window's roles, holes and fixed texts (see model.py).
- A template that was ever rejected is never proposed again (its id is its abstract edit), and one
  whose shapes no longer read back as a statement is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fixloop.adapters.memory.learning import edits_from_json
from fixloop.adapters.memory.privacy import project_name
from fixloop.adapters.mined.edit import Window, generalise, window_of
from fixloop.adapters.mined.model import Example, MinedTemplate, PatternToken, example_of, problem

if TYPE_CHECKING:
    from fixloop.adapters.memory.store import MemoryStore

MIN_SUPPORT = 2
MIN_TOKENS = 3
MAX_EXAMPLES = 3
ALL_ROWS = 1_000_000


@dataclass
class _Group:
    windows: list[Window] = field(default_factory=list)
    places: set[tuple[str, str, str]] = field(default_factory=set)
    projects: set[str] = field(default_factory=set)
    accepted: set[str] = field(default_factory=set)
    examples: list[Example] = field(default_factory=list)


def mine(store: MemoryStore, min_support: int = MIN_SUPPORT, min_tokens: int = MIN_TOKENS,
         skip: frozenset[str] = frozenset()) -> list[MinedTemplate]:
    """Templates mined from the store's verified fixes, best supported first. `skip`: ids never to
    propose (the rejected ones)."""
    rows = store.rows("fixes", "verified = true", ["id", "project", "run_id", "path", "edit", "decision", "time"],
                      limit=ALL_ROWS)
    groups: dict[str, _Group] = {}
    for row in sorted(rows, key=lambda r: (r["time"], r["id"])):
        if row["decision"] == "rejected":
            continue
        edits = edits_from_json(row["edit"])
        if len(edits) != 1 or len(edits[0].before) < min_tokens:
            continue
        try:
            window = window_of(edits[0])
        except RecursionError:  # a statement nested past Python's stack is no pattern anyone repeats
            window = None
        if window is None:
            continue
        group = groups.setdefault(window.key, _Group())
        group.windows.append(window)
        # Examples name a project by its folder only: they travel in export files and a team's store.
        example = example_of(edits[0], project_name(row["project"]), row["path"])
        place = (row["project"], row["path"], example.before)
        if place not in group.places and len(group.examples) < MAX_EXAMPLES:
            group.examples.append(example)
        group.places.add(place)
        group.projects.add(row["project"])
        if row["decision"] == "accepted":
            group.accepted.add(row["run_id"])
    out = []
    for group in groups.values():
        if len(group.places) < max(min_support, 1):
            continue
        window = generalise(group.windows)
        before, after = patterns(window)
        template = MinedTemplate(before, after, support=len(group.places), projects=len(group.projects),
                                 accepted=len(group.accepted), examples=tuple(group.examples), within=window.within,
                                 span=window.span, contexts=tuple(sorted({w.parent for w in group.windows})))
        if template.id not in skip and not problem(template):
            out.append(template)
    out.sort(key=lambda t: (-t.support, -t.projects, t.id))
    return out


def patterns(window: Window) -> tuple[tuple[PatternToken, ...], tuple[PatternToken, ...]]:
    """The window's slots as pattern tokens: roles numbered per kind and holes `_1`, `_2` in the order the
    before-window has them."""
    names: dict[int, str] = {}
    counts: dict[str, int] = {}
    for slot in window.before:
        if slot.var >= 0 and slot.var not in names:
            kind = "_" if slot.kind == "HOLE" else slot.kind
            counts[kind] = counts.get(kind, 0) + 1
            names[slot.var] = f"{kind}{counts[kind]}"

    def token(slot: object) -> PatternToken:
        assert isinstance(slot, type(window.before[0]))
        if slot.var >= 0:
            return PatternToken(True, names[slot.var], slot.gap)
        return PatternToken(False, slot.value, slot.gap)

    return tuple(token(s) for s in window.before), tuple(token(s) for s in window.after)

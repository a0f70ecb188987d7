"""Mining: the abstract edits that verified fixes made more than once, as proposed templates.

The rules (README, "Mined templates"):
- Only verified fixes (they passed the whole suite) that changed exactly one statement count: an edit
  that only worked together with another is not a template on its own. A fix the developer rejected in
  review does not count; one they accepted is counted as `accepted`.
- Support is the number of distinct places (project, file, statement text) a fix made the edit: one bug
  fixed again and again is one place. A template needs `min_support` places (2 by default).
- The before-statement needs `min_tokens` tokens (3): `return ID` -> anything is no pattern.
- An after-statement may only use the before-statement's roles and fixed texts (see model.py).
- A template that was ever rejected is never proposed again (its id is its abstract edit), and one
  whose shapes no longer read back as a statement is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..memory.learning import edits_from_json
from ..memory.privacy import project_name
from .model import Example, MinedTemplate, PatternToken, abstract, example_of, problem, template_id

if TYPE_CHECKING:
    from ..memory.store import MemoryStore

MIN_SUPPORT = 2
MIN_TOKENS = 3
MAX_EXAMPLES = 3
ALL_ROWS = 1_000_000


@dataclass
class _Group:
    before: tuple[PatternToken, ...]
    after: tuple[PatternToken, ...]
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
        before, after = abstract(edits[0])
        key = template_id(before, after)
        if key in skip:
            continue
        group = groups.setdefault(key, _Group(before, after))
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
        template = MinedTemplate(group.before, group.after, support=len(group.places), projects=len(group.projects),
                                 accepted=len(group.accepted), examples=tuple(group.examples))
        if not problem(template):
            out.append(template)
    out.sort(key=lambda t: (-t.support, -t.projects, t.id))
    return out

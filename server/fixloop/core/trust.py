"""Autonomy that grows with the user's trust, as pure data: which kinds of fix the user keeps accepting, and
the grants to apply fixes of such a kind to the editor's buffer without asking.

A kind is where the fix came from (its source), its operator and the error class it fixed. After `after`
fixes of a kind accepted in a row (none rejected since), the user may be asked once whether fixes like
these may be applied without asking; only their yes makes a grant. Any rejection of that kind, or an undo of
a fix applied under the grant, ends it. Never a kind for a fix that touches a test file or is made of
several fixes (stacked), never a model-written kind unless the user opted in (`model`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from fixloop.core.integrity import is_test_file
from fixloop.core.model import Patch
from fixloop.core.sources import MODEL, OTHER, WORDS, source_of

KEEP_RUNS = 50  # accepted runs remembered per kind: enough to count any sensible `after`


@dataclass(frozen=True)
class TrustSettings:
    after: int = 0  # accepted in a row before fixloop may ask to apply such fixes without asking; 0: never
    model: bool = False  # a kind of fix the model wrote may be granted too


@dataclass(frozen=True)
class FixKind:
    source: str  # core/sources.py: replay, analogy, template, search, checker, model, other
    operator: str
    error: str  # the error classes the fix made pass, `+`-joined ("AssertionError", "ruff F401")

    @property
    def id(self) -> str:
        return f"{self.source}/{self.operator}/{self.error}"

    def words(self) -> str:
        return f"{self.operator or 'a fix'} by {WORDS.get(self.source, self.source)}, for {self.error}"

    @property
    def model_written(self) -> bool:
        return self.source in (MODEL, OTHER)


def kind_of(patch: Patch | None, errors: Iterable[str]) -> FixKind | None:
    """The kind of `patch`, made to pass failures of the `errors` classes; None for a fix no grant may cover."""
    if patch is None or not patch.changes or not patch.proposer:
        return None
    if any(is_test_file(c.path) or not c.before for c in patch.changes):
        return None  # a test edited, or a file created (goal mode's new test)
    if len(patch.meta.get("parts", ())) > 1:
        return None  # several fixes stacked: no one kind says what it is
    error = "+".join(sorted({e for e in errors if e})) or "unknown"
    return FixKind(source_of(patch.proposer), patch.operator or "", error)


@dataclass(frozen=True)
class Entry:
    """What the user decided on one kind, in one project."""

    streak: tuple[str, ...] = ()  # the runs accepted since the last rejection (the last KEEP_RUNS)
    rejected: int = 0  # rejections (and undos) ever
    granted: float = 0.0  # when the user granted it; 0: no grant
    asked_at: int = 0  # the streak's length when the user last said "keep asking"
    ended: str = ""  # why the last grant ended

    def to_json(self) -> dict[str, Any]:
        return {"streak": list(self.streak), "rejected": self.rejected, "granted": self.granted,
                "asked_at": self.asked_at, "ended": self.ended}

    @classmethod
    def from_json(cls, data: Any) -> Entry:
        if not isinstance(data, Mapping):
            return cls()
        streak = data.get("streak", [])
        return cls(tuple(str(r) for r in streak)[-KEEP_RUNS:] if isinstance(streak, list) else (),
                   _number(data.get("rejected"), int), _number(data.get("granted"), float),
                   _number(data.get("asked_at"), int), str(data.get("ended", ""))[:200])


def _number(value: Any, kind: type) -> Any:
    return kind(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else kind(0)


def decided(entry: Entry, run_id: str, accepted: bool, why: str = "") -> Entry:
    """`entry` after the user accepted or rejected (or undid) a fix of run `run_id`."""
    if accepted:
        if run_id in entry.streak:
            return entry
        return replace(entry, streak=(*entry.streak, run_id)[-KEEP_RUNS:])
    return Entry(rejected=entry.rejected + 1, ended=(why or "you rejected a fix of this kind") if entry.granted else
                 entry.ended)


def may_ask(entry: Entry, kind: FixKind, settings: TrustSettings) -> bool:
    """Whether to ask now if fixes of `kind` may be applied without asking."""
    if settings.after <= 0 or entry.granted or (kind.model_written and not settings.model):
        return False
    return len(entry.streak) >= settings.after and len(entry.streak) >= entry.asked_at + settings.after


def active(entry: Entry | None, kind: FixKind | None, settings: TrustSettings) -> bool:
    """Whether a fix of `kind` is applied without asking: a grant, trust switched on, the model's only if allowed."""
    return (entry is not None and kind is not None and bool(entry.granted) and settings.after > 0
            and (settings.model or not kind.model_written))


def granted(entry: Entry, now: float) -> Entry:
    return replace(entry, granted=now, ended="")


def declined(entry: Entry) -> Entry:
    return replace(entry, asked_at=len(entry.streak))


def revoked(entry: Entry, why: str) -> Entry:
    return replace(entry, granted=0.0, ended=why, streak=(), asked_at=0)


@dataclass
class Ledger:
    """Every project's entries, by project (its folder) and kind id."""

    projects: dict[str, dict[str, Entry]] = field(default_factory=dict)

    def get(self, project: str, kind_id: str) -> Entry:
        return self.projects.get(project, {}).get(kind_id, Entry())

    def put(self, project: str, kind_id: str, entry: Entry) -> None:
        self.projects.setdefault(project, {})[kind_id] = entry

    def grants(self, project: str | None = None) -> list[tuple[str, str, Entry]]:
        """(project, kind id, entry) of every grant in force, oldest first."""
        found = [(p, k, e) for p, kinds in self.projects.items() if project is None or p == project
                 for k, e in kinds.items() if e.granted]
        return sorted(found, key=lambda g: g[2].granted)

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "projects": {p: {k: e.to_json() for k, e in kinds.items()}
                                           for p, kinds in self.projects.items()}}

    @classmethod
    def from_json(cls, data: Any) -> Ledger:
        """A ledger read back; a part that is not what this writes is left out (it grants nothing)."""
        projects = data.get("projects") if isinstance(data, Mapping) else None
        if not isinstance(projects, Mapping):
            return cls()
        return cls({str(p): {str(k): Entry.from_json(e) for k, e in kinds.items()}
                    for p, kinds in projects.items() if isinstance(kinds, Mapping)})

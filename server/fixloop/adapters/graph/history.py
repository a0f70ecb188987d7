"""What the memory remembers of each entity of a project: its failures, fixes and review decisions.

Read from the memory's own tables through their `entity` column, once per change of those tables (a
dictionary lookup after that), so an editor asking on every keystroke costs nothing.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from fixloop.adapters.memory.store import MemoryStore, quote

RECENT_DAYS = 30
MAX_EVENTS = 5  # per entity, the latest failures kept for a hover
MAX_ROWS = 1_000_000


@dataclass
class EntityRecord:
    failures: int = 0
    recent: int = 0  # failures in the last RECENT_DAYS days
    fixed: int = 0  # verified fixes of this entity
    accepted: int = 0  # fixes (runs) the developer accepted here
    rejected: int = 0  # fixes (runs) the developer rejected here
    tests: set[str] = field(default_factory=set)  # the failing tests
    events: list[tuple[float, str]] = field(default_factory=list)  # (time, one line), newest first


class EntityHistory:
    def __init__(self, store: MemoryStore, project: str, now: Callable[[], float] = time.time) -> None:
        self.store = store
        self.project = project
        self.now = now
        self._cache: tuple[tuple[int, int, int], dict[str, EntityRecord]] | None = None
        self._lock = threading.Lock()

    def records(self) -> dict[str, EntityRecord]:
        key = tuple(self.store.table(name).version for name in ("failures", "fixes", "decisions"))
        with self._lock:
            if self._cache is not None and self._cache[0] == key:
                return self._cache[1]
        records = self._read()
        with self._lock:
            self._cache = (key, records)  # type: ignore[assignment]  # three versions
        return records

    def get(self, entity: str) -> EntityRecord | None:
        return self.records().get(entity)

    def _read(self) -> dict[str, EntityRecord]:
        where = f"project = {quote(self.project)} AND entity != ''"
        out: dict[str, EntityRecord] = {}
        since = self.now() - RECENT_DAYS * 86400
        failures = self.store.rows("failures", where, ["entity", "time", "test_id", "exc_type", "statement", "fixed"],
                                   limit=MAX_ROWS)
        for row in sorted(failures, key=lambda r: -r["time"]):
            rec = out.setdefault(row["entity"], EntityRecord())
            rec.failures += 1
            rec.recent += row["time"] >= since
            rec.tests.add(row["test_id"])
            if len(rec.events) < MAX_EVENTS:
                rec.events.append((row["time"], _event(row)))
        for row in self.store.rows("fixes", where + " AND verified = true", ["entity", "diff"], limit=MAX_ROWS):
            if row["diff"]:  # one row per run carries the diff; the others repeat it for more failing tests
                out.setdefault(row["entity"], EntityRecord()).fixed += 1
        verdicts: dict[tuple[str, str], set[bool]] = {}
        for row in self.store.rows("decisions", where, ["entity", "run_id", "accepted"], limit=MAX_ROWS):
            verdicts.setdefault((row["entity"], row["run_id"]), set()).add(bool(row["accepted"]))
        for (entity, _), seen in verdicts.items():
            rec = out.setdefault(entity, EntityRecord())
            if False in seen:
                rec.rejected += 1
            else:
                rec.accepted += 1
        return out


def _event(row: dict[str, Any]) -> str:
    day = time.strftime("%Y-%m-%d", time.localtime(row["time"]))
    statement = f" at `{row['statement'].strip()[:80]}`" if row["statement"].strip() else ""
    return f"{day} {row['exc_type'] or 'failure'} in {row['test_id']}{statement}{', fixed' if row['fixed'] else ''}"


def times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


def warning_text(short: str, rec: EntityRecord) -> str:
    """e.g. "the tests of `apply_discount` failed 3 times this month; 2 fixes here were rejected"."""
    parts = []
    if rec.recent:
        parts.append(f"the tests of `{short}` failed {times(rec.recent)} in the last {RECENT_DAYS} days")
    elif rec.failures:
        parts.append(f"the tests of `{short}` failed {times(rec.failures)} before")
    if rec.rejected:
        parts.append(f"{rec.rejected} fix{'es' if rec.rejected != 1 else ''} here "
                     f"{'were' if rec.rejected != 1 else 'was'} rejected")
    return "; ".join(parts)


def hover_text(entity_id: str, short: str, rec: EntityRecord | None, callers: list[str], callees: list[str],
               tests: list[str]) -> str:
    """Markdown for a hover on the entity's name."""
    lines = [f"**fixloop memory** · `{entity_id}`", ""]
    if rec is None or not (rec.failures or rec.fixed or rec.accepted or rec.rejected):
        lines.append(f"No failures of `{short}` remembered.")
    else:
        lines.append(f"Failed {times(rec.failures)} ({rec.recent} in the last {RECENT_DAYS} days); "
                     f"fixed {times(rec.fixed) if rec.fixed else 'never'}; fixes accepted {rec.accepted}, "
                     f"rejected {rec.rejected}.")
        lines += ["", *[f"- {line}" for _, line in rec.events]]
    for title, names in (("Tests", tests), ("Called by", callers), ("Calls", callees)):
        if names:
            shown = ", ".join(f"`{n}`" for n in names[:8])
            lines += ["", f"{title}: {shown}" + (f" and {len(names) - 8} more" if len(names) > 8 else "")]
    return "\n".join(lines)

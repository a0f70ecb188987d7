"""Moving rows between the local cache and the shared store: push queued (or one project's) rows,
pull the rows the cache lacks.

Rows are matched by id, so a push or a pull that is repeated (after a crash, or by two processes)
adds nothing twice. The shared store only ever receives appends, which Lance commits with a
conditional put of the next manifest and rebases on a conflict: two machines pushing at once both
land. Vectors never travel: each machine embeds the text with its own embedder.
"""

from __future__ import annotations

from typing import Any, Sequence

from .privacy import SHARED_TABLES, UNPROJECTED, for_sharing
from .store import MemoryStore, quote, where_in

CHUNK = 2000
ALL_ROWS = 100_000_000


def _chunks(items: Sequence[str], size: int = CHUNK) -> list[Sequence[str]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _ids(store: MemoryStore, table: str, where: str = "") -> set[str]:
    return {r["id"] for r in store.rows(table, where, ["id"], limit=ALL_ROWS)}


def send(remote: MemoryStore, table: str, rows: list[dict[str, Any]], present: set[str]) -> int:
    """Append the rows whose id is not in `present` (the shared store's ids); returns how many were added."""
    new = [r for r in rows if r["id"] not in present]
    for row in new:
        row.pop("embedder", None)
    remote.add(table, new)
    present.update(r["id"] for r in new)
    return len(new)


def push_ids(cache: MemoryStore, remote: MemoryStore, queued: dict[str, list[str]], share: str) -> int:
    """The queued rows (table -> ids), scrubbed and filtered by `share`, to the shared store. The shared
    ids are read once per table: on object storage a filter by id reads the whole id column anyway."""
    sent = 0
    for table in SHARED_TABLES:
        if not queued.get(table):
            continue
        present = _ids(remote, table)
        for chunk in _chunks(queued[table]):
            rows = cache.rows(table, where_in("id", chunk), limit=len(chunk))
            sent += send(remote, table, for_sharing(table, rows, share), present)
    return sent


def push_project(cache: MemoryStore, remote: MemoryStore, project: str, share: str) -> int:
    """Every cached row of `project` that `share` lets go and the shared store lacks."""
    sent = 0
    for table in (t for t in SHARED_TABLES if t not in UNPROJECTED):
        ids = sorted(_ids(cache, table, f"project = {quote(project)}"))
        sent += push_ids(cache, remote, {table: ids}, share) if ids else 0
    return sent


def pull(cache: MemoryStore, remote: MemoryStore, project: str = "", seen: dict[str, int] | None = None) -> int:
    """Copy into the cache the shared rows it lacks (of one project, or all). `seen` maps a table to the
    shared version last pulled whole: an unchanged table is skipped without listing its ids."""
    pulled = 0
    where = f"project = {quote(project)}" if project else ""
    for table in SHARED_TABLES:
        if project and table in UNPROJECTED:
            continue
        version = int(remote.table(table).version)
        if seen is not None and not project and seen.get(table) == version:
            continue
        missing = sorted(_ids(remote, table, where) - _ids(cache, table, where))
        for chunk in _chunks(missing):
            rows = remote.rows(table, where_in("id", chunk), limit=len(chunk))
            for row in rows:
                row.pop("embedder", None)
            cache.upsert(table, rows)
            pulled += len(rows)
        if seen is not None and not project:
            seen[table] = version
    return pulled

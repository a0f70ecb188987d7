"""Moving rows between the local cache and the shared store: push queued (or one project's) rows,
pull the rows the cache lacks.

Rows are matched by id, so a push or a pull that is repeated (after a crash, or by two processes)
adds nothing twice. The shared store only ever receives appends, which Lance commits with a
conditional put of the next manifest and rebases on a conflict: two machines pushing at once both
land. Vectors never travel: each machine embeds the text with its own embedder.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from fixloop.adapters.memory.privacy import FORGOTTEN, SHARED_TABLES, UNPROJECTED, VERDICTS, for_sharing
from fixloop.adapters.memory.store import MemoryStore, quote, where_in

CHUNK = 2000
ALL_ROWS = 100_000_000


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
    gone = _ids(remote, FORGOTTEN)  # a row forgotten by someone is never shared again, even from a stale copy
    for table in SHARED_TABLES:
        if not queued.get(table):
            continue
        present = _ids(remote, table) | gone
        for rows in _fetch(cache, table, "", queued[table]):
            sent += send(remote, table, for_sharing(table, rows, share), present)
    for rows in _fetch(cache, FORGOTTEN, "", queued.get(FORGOTTEN, [])):  # last: after the rows they name
        sent += send(remote, FORGOTTEN, rows, gone)
        _delete_named(remote, rows)
    return sent


def _delete_named(store: MemoryStore, tombstones: list[dict[str, Any]]) -> None:
    for table in {t["table"] for t in tombstones} & set(SHARED_TABLES):
        store.delete(table, where_in("id", [t["id"] for t in tombstones if t["table"] == table]))


def pull_forgotten(cache: MemoryStore, remote: MemoryStore, seen: dict[str, int] | None) -> set[str]:
    """Take in the ids others forgot and delete their rows from the cache; returns every forgotten id."""
    version = int(remote.table(FORGOTTEN).version)
    if seen is None or seen.get(FORGOTTEN) != version:
        for rows in _fetch(remote, FORGOTTEN, "", sorted(_ids(remote, FORGOTTEN) - _ids(cache, FORGOTTEN))):
            cache.upsert(FORGOTTEN, rows)
            _delete_named(cache, rows)
        if seen is not None:
            seen[FORGOTTEN] = version
    return _ids(cache, FORGOTTEN)


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
    gone = pull_forgotten(cache, remote, seen)
    where = f"project = {quote(project)}" if project else ""
    decided: set[str] = set()  # fixes pulled, or with a verdict pulled: their `decision` is set from the verdicts
    for table in SHARED_TABLES:
        if project and table in UNPROJECTED:
            continue
        version = int(remote.table(table).version)
        if seen is not None and not project and seen.get(table) == version:
            continue
        missing = sorted(_ids(remote, table, where) - _ids(cache, table, where) - gone)
        for rows in _fetch(remote, table, where, missing):
            for row in rows:
                row.pop("embedder", None)
            cache.upsert(table, rows)
            pulled += len(rows)
            decided.update(r["id"] for r in rows if table == "fixes")
            decided.update(r["fix_id"] for r in rows if table == VERDICTS)
        if seen is not None and not project:
            seen[table] = version
    apply_verdicts(cache, decided)
    return pulled


def apply_verdicts(cache: MemoryStore, fix_ids: set[str]) -> None:
    """Set these fixes' `decision` to their latest verdict in the cache (a fix nobody decided keeps its own)."""
    latest: dict[str, tuple[float, str]] = {}
    for start in range(0, len(fix_ids), CHUNK):
        chunk = sorted(fix_ids)[start:start + CHUNK]
        for v in cache.rows(VERDICTS, where_in("fix_id", chunk), ["fix_id", "decision", "time"], limit=ALL_ROWS):
            if v["fix_id"] not in latest or (v["time"], v["decision"]) > latest[v["fix_id"]]:
                latest[v["fix_id"]] = (v["time"], v["decision"])
    for decision in sorted({d for _t, d in latest.values()}):
        ids = sorted(i for i, (_t, d) in latest.items() if d == decision)
        for start in range(0, len(ids), CHUNK):
            cache.update("fixes", where_in("id", ids[start:start + CHUNK]), {"decision": decision})


def _fetch(store: MemoryStore, table: str, where: str, missing: Sequence[str]) -> Iterator[list[dict[str, Any]]]:
    """The rows of `store` with these ids, a chunk at a time. A few are asked for by id; many are taken from one
    streamed pass over the table, since on object storage every filter by id reads the whole id column
    (fifty such reads made a pull of 100,000 rows outlast a slow server's patience)."""
    if len(missing) <= CHUNK:
        if missing:
            yield store.rows(table, where_in("id", missing), limit=len(missing))
        return
    wanted = set(missing)
    columns = [c for c in store.table(table).schema.names if c != "vector"]
    query = store.table(table).search()
    if where:
        query = query.where(where)
    for batch in query.select(columns).limit(ALL_ROWS).to_batches(CHUNK):
        rows = [r for r in batch.to_pylist() if r["id"] in wanted]
        if rows:
            yield rows

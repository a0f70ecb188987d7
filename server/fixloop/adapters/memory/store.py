"""The memory store on LanceDB: open (or move a corrupt store aside), write rows, search, evict, compact.

`lancedb` is imported on first use, never at module import: it costs 1.3-2.3 s and ~170 MB, and
the language server must start without it. Every text column is redacted before it is written.
Writes are appends, deletes and small updates, which Lance commits atomically and retries on a
conflict, so two processes writing at once lose nothing and a killed writer loses only its own
uncommitted batch.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeVar

if TYPE_CHECKING:
    import numpy as np

from fixloop.adapters.memory import packed
from fixloop.adapters.memory.embed import Embedder
from fixloop.adapters.memory.engine import retry, direct_runner
from fixloop.adapters.memory.redact import redactor

log = logging.getLogger("fixloop.adapters.memory")
T = TypeVar("T")

TEXT_COLUMNS = frozenset({"message", "statement", "text", "signature", "diff", "summary", "test_id", "tried_operators"})
STALE_TMP_SECONDS = 3600.0
RECALL_COLUMNS = packed.FIELDS
# Another process's commits become visible within this interval; checking the latest version on
# every read instead costs about 1 ms per lookup. A process always sees its own writes at once.
READ_CONSISTENCY = timedelta(seconds=1)


class StoreUnavailable(Exception):
    """The store cannot be used (a remote store is unreachable, or it was written by a newer fixloop)."""


def default_uri() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "fixloop" / "memory")


def is_local(uri: str) -> bool:
    return "://" not in uri or uri.startswith("file://")


def local_path(uri: str) -> Path:
    return Path(uri[len("file://"):] if uri.startswith("file://") else uri).expanduser()


def new_id() -> str:
    return uuid.uuid4().hex[:16]


def quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class MemoryStore:
    def __init__(self, uri: str, embedder: Embedder, max_rows: int = 200_000,
                 index_threshold: int = 50_000) -> None:
        self.uri = uri or default_uri()
        self.embedder = embedder
        self.max_rows = max_rows
        self.index_threshold = index_threshold
        self.problem = ""  # set when the store was moved aside: the caller shows it to the user
        self.notes: list[str] = []  # what the run should tell the user once (a shared store out of reach)
        self._db: Any = None
        self._tables: dict[str, Any] = {}
        self._direct: Callable[[Any], Any] | None = None  # runs a query of the async API; see _arrow
        self._opening = threading.RLock()  # a run opens the store in the background (LearningMemory.warm)
        self._ready = False  # opened and migrated: other threads may use it without the lock

    # ---- opening -------------------------------------------------------------------------------

    def open(self) -> "MemoryStore":
        if self._ready:
            return self
        with self._opening:
            self._open_locked()
            self._ready = True
        return self

    def _open_locked(self) -> "MemoryStore":
        # Open: another thread did while this one waited, or this thread is migrating what it opened.
        if self._db is not None:
            return self
        last: Exception | None = None
        # Another process may be creating the same local store right now; a remote client retries itself.
        for attempt in range(3 if is_local(self.uri) else 1):
            try:
                self._open_once()
                return self
            except StoreUnavailable:
                raise
            except Exception as e:
                last = e
                self._db, self._tables = None, {}
                time.sleep(0.2 * (attempt + 1))
        if not is_local(self.uri):
            raise StoreUnavailable(f"the memory store {self.uri} cannot be opened: {type(last).__name__}: {last}")
        self._quarantine(last)
        self._open_once()
        return self

    def _open_once(self) -> None:
        import lancedb  # lazy: see the module docstring

        from fixloop.adapters.memory import schema

        if is_local(self.uri):
            path = local_path(self.uri)
            if path.exists() and not path.is_dir():
                raise NotADirectoryError(f"{path} is a file, not a store directory")
            path.mkdir(parents=True, exist_ok=True)
            options = None
        else:
            from fixloop.adapters.memory.remote import storage_options

            options = storage_options(self.uri)
        db = lancedb.connect(self.uri, read_consistency_interval=READ_CONSISTENCY, storage_options=options)
        existing = set(db.list_tables(limit=1000).tables)
        tables: dict[str, Any] = {}
        for name in schema.TABLES:
            wanted = schema.schema_for(name, self.embedder.dim)
            if name in existing:
                table = db.open_table(name)
                if "id" not in table.schema.names and name != "meta" or name == "meta" and "key" not in table.schema.names:
                    raise StoreUnavailable(f"{self.uri} holds a table {name!r} that is not a fixloop memory table; "
                                           "point memory.uri at another location")
            else:
                table = db.create_table(name, schema=wanted, exist_ok=True)
            table.count_rows()
            table.search().limit(1).to_arrow()  # reads a data file: a broken one shows here
            missing = schema.missing_columns(table.schema, wanted)
            if missing:
                table.add_columns(missing)
            tables[name] = table
        self._db, self._tables = db, tables
        self._direct = direct_runner(tables)
        self._migrate()

    def _quarantine(self, error: Exception | None) -> None:
        path = local_path(self.uri)
        target = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        os.replace(path, target)
        self.problem = (f"the memory store at {path} could not be opened ({type(error).__name__}: {error}); "
                        f"it was moved to {target} and a new, empty store was started")
        log.warning(self.problem)

    def meta(self) -> dict[str, str]:
        rows = self.table("meta").search().limit(1000).to_arrow().to_pylist()
        return {r["key"]: r["value"] for r in rows}

    def _set_meta(self, values: dict[str, str]) -> None:
        rows = [{"key": k, "value": v} for k, v in values.items()]
        retry(lambda: self.table("meta").merge_insert("key").when_matched_update_all()
               .when_not_matched_insert_all().execute(rows))

    def _migrate(self) -> None:
        from fixloop.adapters.memory import schema

        meta = self.meta()
        version = int(meta.get("schema_version", "0") or 0)
        if version > schema.SCHEMA_VERSION:
            raise StoreUnavailable(f"the memory store {self.uri} has schema version {version}, newer than this "
                                   f"fixloop understands ({schema.SCHEMA_VERSION}); upgrade fixloop or use another store")
        while version and version < schema.SCHEMA_VERSION:
            step = schema.MIGRATIONS.get(version)
            if step is not None:
                step(self._db)
            version += 1
        updates = {}
        if meta.get("schema_version") != str(schema.SCHEMA_VERSION):
            updates["schema_version"] = str(schema.SCHEMA_VERSION)
        if meta.get("embedder") not in (None, self.embedder.name):
            self.reembed()
        if meta.get("embedder") != self.embedder.name:
            updates["embedder"] = self.embedder.name
        if updates:
            self._set_meta(updates)

    def reembed(self) -> int:
        """Recompute every stored vector with the current embedder (after a change of embedder)."""
        from fixloop.adapters.memory import schema

        failures = self.table("failures")
        data = failures.search().limit(max(failures.count_rows(), 1)).to_arrow().drop_columns(["vector"])
        rows = data.to_pylist()
        for row, vector in zip(rows, self._vectors([r["text"] for r in rows])):
            row["vector"], row["embedder"] = vector, self.embedder.name
        self._tables["failures"] = self._db.create_table(
            "failures", data=rows or None, schema=schema.failures(self.embedder.dim), mode="overwrite")
        return len(rows)

    def flush(self) -> None:
        """Hand finished writes on (a shared store pushes its queue); a local store has nothing to do."""

    # ---- rows ----------------------------------------------------------------------------------

    def table(self, name: str) -> Any:
        self.open()
        return self._tables[name]

    def connection(self) -> Any:
        """The open LanceDB connection, for tables kept beside the memory's (the code graph's)."""
        self.open()
        return self._db

    def _vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        import numpy as np

        if not texts:
            return []
        return list(np.asarray(self.embedder.embed(list(texts)), dtype=np.float32))

    def _prepared(self, name: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows as stored: secrets redacted, failures embedded."""
        clean_text = redactor()
        clean = [{k: clean_text(v) if k in TEXT_COLUMNS and isinstance(v, str) else v for k, v in r.items()} for r in rows]
        if name == "failures":
            for row, vector in zip(clean, self._vectors([r["text"] for r in clean])):
                row["vector"], row["embedder"] = vector, self.embedder.name
                row["recall"] = packed.repacked(row, lambda k, v: clean_text(v) if k in TEXT_COLUMNS else v)
        return clean

    def add(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        from fixloop.adapters.memory import schema

        if not rows:
            return
        clean = self._prepared(name, rows)
        wanted = schema.schema_for(name, self.embedder.dim)
        for row in clean:  # every column present, so older and newer writers agree on the layout
            for f in wanted:
                row.setdefault(f.name, schema.empty_value(f.type))
        table = self.table(name)
        retry(lambda: table.add(clean))

    def upsert(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        """Insert rows whose id is new; keep the stored row otherwise (import, replays of export)."""
        if not rows:
            return
        clean = self._prepared(name, rows)
        table = self.table(name)
        retry(lambda: table.merge_insert("id").when_not_matched_insert_all().execute(clean))

    def rows(self, name: str, where: str = "", columns: Sequence[str] | None = None, limit: int = 10_000) -> list[dict[str, Any]]:
        self.open()  # before choosing the builder: opening decides which one runs
        query = self.table(name).search() if self._direct is None else self.table(name)._table.query()
        if where:
            query = query.where(where)
        if columns:
            query = query.select(list(columns))
        rows = self._arrow(query.limit(limit)).to_pylist()
        for r in rows:
            r.pop("vector", None)
        return rows

    def similar(self, text: str, k: int = 5, where: str = "",
                columns: Sequence[str] = RECALL_COLUMNS) -> list[tuple[dict[str, Any], float]]:
        """The k nearest failures to `text` with their cosine similarity (1 = the same direction).
        Only `columns` are read; the recall fields come from the one packed column, with the failure's
        fix under `fix` (None when the row carries none), unless a row's packed value is unreadable."""
        self.open()  # before choosing the builder: opening decides which one runs
        vector = self._vectors([text])[0]
        use_packed = set(columns) <= set(packed.FIELDS)
        rows = self._nearest(vector, k, where, ["recall"] if use_packed else columns)
        if use_packed:
            unpacked = [(packed.unpack(row["recall"]), sim) for row, sim in rows]
            if all(row is not None for row, _ in unpacked):
                return unpacked  # type: ignore[return-value]
            rows = self._nearest(vector, k, where, columns)
        return rows

    def _nearest(self, vector: Any, k: int, where: str, columns: Sequence[str]) -> list[tuple[dict[str, Any], float]]:
        columns = [c for c in columns if c != "vector"] + ["_distance"]
        if self._direct is None:
            query = self.table("failures").search(vector, vector_column_name="vector")
        else:
            query = self.table("failures")._table.query().nearest_to(vector).column("vector")
        query = query.distance_type("cosine").limit(k)
        if where:
            query = query.where(where)  # a prefilter: the k nearest of the rows that match
        out = []
        for row in self._arrow(query.select(columns)).to_pylist():
            distance = float(row.pop("_distance"))
            out.append((row, 1.0 - distance))
        return out

    def _arrow(self, query: Any) -> Any:
        """Run a query in one round trip to LanceDB's engine. The synchronous builder makes five more
        (schema reads for blob columns, which this store never has): ~2 ms of a 100,000-row lookup."""
        if self._direct is None:
            return query.to_arrow()
        return self._direct(query.to_arrow())

    def update(self, name: str, where: str, values: dict[str, Any]) -> None:
        table = self.table(name)
        retry(lambda: table.update(where=where, values=values))

    def delete(self, name: str, where: str) -> int:
        table = self.table(name)
        before = table.count_rows()
        retry(lambda: table.delete(where))
        return before - table.count_rows()

    def forget(self, name: str, where: str) -> int:
        """Delete rows because the user asked (a shared store also tells the team); eviction only deletes."""
        return self.delete(name, where)

    def count(self, name: str, where: str | None = None) -> int:
        return int(self.table(name).count_rows(where)) if where else int(self.table(name).count_rows())

    # ---- upkeep --------------------------------------------------------------------------------

    def enforce_cap(self) -> int:
        """Keep at most `max_rows` failures (and as many rows in the other tables): the oldest
        failures that were never fixed go first, then the oldest of the rest."""
        removed = 0
        for name in ("failures", "fixes", "decisions", "operator_stats"):
            total = self.count(name)
            if total <= self.max_rows:
                continue
            keep = int(self.max_rows * 0.9)  # evict in a batch, not one row per write
            excess = total - keep
            if name == "failures":
                unfixed = self.rows(name, "fixed = false", ["time"], limit=total)
                times = sorted(r["time"] for r in unfixed)
                if len(times) >= excess:
                    removed += self.delete(name, f"fixed = false AND time <= {times[excess - 1]!r}")
                    continue
            times = sorted(r["time"] for r in self.rows(name, "", ["time"], limit=total))
            removed += self.delete(name, f"time <= {times[excess - 1]!r}")
        return removed

    def compact(self, build_index: bool = True) -> dict[str, Any]:
        """Merge small fragments, drop old versions, sweep crash leftovers, index a large table."""
        from fixloop.adapters.memory import schema

        report: dict[str, Any] = {"removed_tmp_files": self._sweep_tmp()}
        for name in schema.TABLES:
            table = self.table(name)
            table.optimize(cleanup_older_than=timedelta(minutes=10))
        if build_index:
            report["indexed"] = self.ensure_index()
        return report

    def ensure_index(self) -> bool:
        """An IVF_HNSW_SQ vector index once the failures table passes `index_threshold` rows
        (a flat scan of 100,000 rows takes ~90 ms; the index answers in a few)."""
        table = self.table("failures")
        if table.count_rows() < self.index_threshold:
            return False
        if any("vector" in getattr(i, "columns", []) for i in table.list_indices()):
            return False
        from lancedb.index import HnswSq

        table.create_index("vector", config=HnswSq(distance_type="cosine"))
        return True

    def _sweep_tmp(self) -> int:
        """A writer killed mid-`add` leaves an orphan `.tmp*` file that Lance never removes."""
        if not is_local(self.uri):
            return 0
        count = 0
        now = time.time()
        for tmp in local_path(self.uri).glob("*.lance/**/.tmp*"):
            try:
                if tmp.is_file() and now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                    tmp.unlink()
                    count += 1
            except OSError:
                continue
        return count

    def disk_bytes(self) -> int:
        if not is_local(self.uri):
            return 0
        return sum(p.stat().st_size for p in local_path(self.uri).rglob("*") if p.is_file())


def where_in(column: str, values: Iterable[str]) -> str:
    items = sorted(set(values))
    return f"{column} IN ({', '.join(quote(v) for v in items)})" if items else "false"

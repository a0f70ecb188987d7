"""The code graph's tables, kept beside the memory's in the same LanceDB store, with their own version.

Three tables: `graph_entities` and `graph_refs` (one row per entity / unresolved reference, each naming its
project and file, so one saved file is rewritten alone) and `graph_meta` (the graph's schema version).
The graph is derived data: tables from an older schema, or that cannot be read, are dropped and rebuilt
from the workspace with a message; the memory's own tables are never touched. Tables written by a newer
fixloop are left alone and the graph is off, with a message.
"""

from __future__ import annotations

import logging
import shutil
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from fixloop.adapters.memory.engine import retry
from fixloop.adapters.memory.store import MemoryStore, is_local, local_path, quote
from fixloop.kit.entities import Entity, FileIndex, Ref

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger("fixloop.adapters.graph")
GRAPH_SCHEMA_VERSION = 1
TABLE_NAMES = ("graph_entities", "graph_refs", "graph_meta")
COVERAGE_PATH = ""  # refs of kind `covers` (test -> entity, from a run's coverage) belong to no file


class GraphRefused(Exception):
    """The graph tables were written by a newer fixloop: left as they are, the graph is off."""


class _Stale(Exception):
    """The graph tables are of an older layout: they are rebuilt."""


class GraphStore:
    def __init__(self, memory: MemoryStore) -> None:
        self.memory = memory
        self.problem = ""  # what the user should be told once (the graph was rebuilt, or is off)
        self._tables: dict[str, Any] | None = None
        self._refused: GraphRefused | None = None  # asked once: a newer graph stays refused for this process

    def tables(self) -> dict[str, Any]:
        if self._tables is not None:
            return self._tables
        if self._refused is not None:
            raise self._refused
        db = self.memory.connection()
        try:
            self._tables = _open(db)
        except GraphRefused as e:
            self.problem, self._refused = str(e), e
            raise
        except Exception as e:  # an older layout, or a table that cannot be read: the graph is rebuilt
            reason = str(e) if isinstance(e, _Stale) else f"could not be read ({type(e).__name__}: {e})"
            self.problem = (f"the code graph stored with the memory at {self.memory.uri} {reason}; it was dropped "
                            "and is rebuilt from the workspace (the memory's failures, fixes and decisions are kept)")
            log.warning(self.problem)
            _drop(db, self.memory.uri)
            self._tables = _open(db)
        return self._tables

    # ---- reading -----------------------------------------------------------------------------------
    def load(self, project: str) -> tuple[dict[str, FileIndex], dict[str, set[str]]]:
        """The project's file indexes and coverage edges (test -> entities) as stored."""
        tables = self.tables()
        where = f"project = {quote(project)}"
        entities = _rows(tables["graph_entities"], where)
        refs = _rows(tables["graph_refs"], where)
        by_path: dict[str, list[Entity]] = {}
        digests: dict[str, str] = {}
        for r in entities:
            by_path.setdefault(r["path"], []).append(Entity(r["id"], r["kind"], r["path"], r["name"], r["line"],
                                                             r["end_line"], r["column"], r["end_column"]))
            digests[r["path"]] = r["digest"]
        refs_by_path: dict[str, list[Ref]] = {}
        coverage: dict[str, set[str]] = {}
        for r in refs:
            if r["kind"] == "covers":
                coverage.setdefault(r["src"], set()).add(r["target"])
            else:
                refs_by_path.setdefault(r["path"], []).append(Ref(r["src"], r["kind"], r["target"], r["alias"]))
        files = {}
        for path, items in by_path.items():
            module = next((e.id for e in items if e.kind == "module"), items[0].id.split("::")[0])
            files[path] = FileIndex(path, module, tuple(sorted(items, key=lambda e: (e.line, e.id))),
                                    tuple(refs_by_path.get(path, ())), digests[path])
        return files, coverage

    # ---- writing -----------------------------------------------------------------------------------
    def replace_files(self, project: str, indexes: Iterable[FileIndex], removed: Iterable[str] = (),
                      everything: bool = False) -> None:
        """Write these files' rows in place of what the project had for them (`everything`: of all files)."""
        tables = self.tables()
        indexes = list(indexes)
        where = f"project = {quote(project)}"
        if everything:
            _retry_delete(tables["graph_entities"], where)
            _retry_delete(tables["graph_refs"], f"{where} AND kind != 'covers'")
        else:
            paths = [i.path for i in indexes] + list(removed)
            if paths:
                listed = ", ".join(quote(p) for p in sorted(set(paths)))
                _retry_delete(tables["graph_entities"], f"{where} AND path IN ({listed})")
                _retry_delete(tables["graph_refs"], f"{where} AND path IN ({listed})")
        entity_rows = [{"project": project, "id": e.id, "kind": e.kind, "path": e.path, "name": e.name,
                        "line": e.line, "end_line": e.end_line, "column": e.column, "end_column": e.end_column,
                        "digest": i.digest} for i in indexes for e in i.entities]
        ref_rows = [{"project": project, "path": i.path, "src": r.src, "kind": r.kind, "target": r.target,
                     "alias": r.alias} for i in indexes for r in i.refs]
        if entity_rows:
            tables["graph_entities"].add(entity_rows)
        if ref_rows:
            tables["graph_refs"].add(ref_rows)

    def replace_coverage(self, project: str, edges: Mapping[str, set[str]]) -> None:
        """The tests' coverage edges from a run, in place of what earlier runs said of the same tests."""
        if not edges:
            return
        table = self.tables()["graph_refs"]
        listed = ", ".join(quote(t) for t in sorted(edges))
        _retry_delete(table, f"project = {quote(project)} AND kind = 'covers' AND src IN ({listed})")
        rows = [{"project": project, "path": COVERAGE_PATH, "src": test, "kind": "covers", "target": target,
                 "alias": ""} for test, targets in sorted(edges.items()) for target in sorted(targets)]
        if rows:
            table.add(rows)


def _rows(table: Any, where: str) -> list[dict[str, Any]]:
    return table.search().where(where).limit(max(1, table.count_rows())).to_arrow().to_pylist()


def _retry_delete(table: Any, where: str) -> None:
    retry(lambda: table.delete(where))


def schemas() -> dict[str, "pa.Schema"]:
    import pyarrow as pa  # lazy: the language server and the loop import this module without the store

    s, i = pa.string(), pa.int32()
    return {
        "graph_entities": pa.schema([("project", s), ("id", s), ("kind", s), ("path", s), ("name", s), ("line", i),
                                     ("end_line", i), ("column", i), ("end_column", i), ("digest", s)]),
        "graph_refs": pa.schema([("project", s), ("path", s), ("src", s), ("kind", s), ("target", s), ("alias", s)]),
        "graph_meta": pa.schema([("key", s), ("value", s)]),
    }


def _open(db: Any) -> dict[str, Any]:
    layouts = schemas()
    existing = set(db.list_tables(limit=1000).tables)
    if "graph_meta" in existing:
        meta = db.open_table("graph_meta")
        if set(layouts["graph_meta"].names) - set(meta.schema.names):
            raise _Stale("has a meta table of another layout")
        rows = meta.search().limit(100).to_arrow().to_pylist()
        version = int(next((r["value"] for r in rows if r["key"] == "schema_version"), "0") or 0)
        if version > GRAPH_SCHEMA_VERSION:
            raise GraphRefused(f"the code graph in {db.uri} has schema version {version}, newer than this fixloop "
                               f"writes ({GRAPH_SCHEMA_VERSION}); entity warnings and hovers are off until fixloop "
                               "is upgraded")
        if version < GRAPH_SCHEMA_VERSION:
            raise _Stale(f"was from schema version {version} (this fixloop writes {GRAPH_SCHEMA_VERSION})")
    tables: dict[str, Any] = {}
    for name, schema in layouts.items():
        table = db.open_table(name) if name in existing else db.create_table(name, schema=schema, exist_ok=True)
        if set(schema.names) - set(table.schema.names):
            raise _Stale(f"has a table {name} of an older layout")
        table.count_rows()
        table.search().limit(1).to_arrow()  # reads a data file: a broken one shows here
        tables[name] = table
    if "graph_meta" not in existing:
        tables["graph_meta"].add([{"key": "schema_version", "value": str(GRAPH_SCHEMA_VERSION)}])
    return tables


def _drop(db: Any, uri: str) -> None:
    """Drop the graph's tables, and only them; a table too broken to drop is removed from disk."""
    for name in TABLE_NAMES:
        try:
            db.drop_table(name)
        except Exception:
            if is_local(uri):
                shutil.rmtree(local_path(uri) / f"{name}.lance", ignore_errors=True)

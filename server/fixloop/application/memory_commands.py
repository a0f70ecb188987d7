"""`fixloop memory stats | search | show | forget | export | import | compact | sync | push | pull | sharing`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional, TextIO

import typer

from fixloop.application.config import MemorySettings, project_settings
from fixloop.kit.screen import console

if TYPE_CHECKING:
    from fixloop.adapters.memory.store import MemoryStore

# The store, its schema (pyarrow) and the describer (tree-sitter) load when a memory command runs, not when
# `fixloop` starts: `fixloop stats`, `fixloop version` and the rest never pay for them.


def make_store(settings: MemorySettings) -> "MemoryStore":
    from fixloop.adapters.memory.factory import make_store as make

    return make(settings)


def default_uri() -> str:
    from fixloop.adapters.memory.store import default_uri as uri

    return uri()


def quote(value: str) -> str:
    from fixloop.adapters.memory.store import quote as q

    return q(value)


def query_text(text: str) -> str:
    from fixloop.adapters.memory.describe import query_text as describe

    return describe(text)

memory_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Inspect and share the learning memory.")
err = console(stderr=True)
EXPORT_TABLES = ("failures", "fixes", "decisions", "operator_stats")
EXPORT_FORMAT = 1

MemoryOption = typer.Option(None, "--memory", envvar="FIXLOOP_MEMORY", help="Memory store path or URI.")


def _settings(uri: Optional[str]) -> MemorySettings:
    settings, problems = project_settings(Path.cwd())  # your config file, then the project (tighten-only)
    for p in problems:
        err.print(f"[yellow]config:[/] {p}")
    memory = settings.memory
    if uri:
        from dataclasses import replace

        memory = replace(memory, uri=uri)
    return memory


def _open(uri: Optional[str]) -> MemoryStore:
    from fixloop.adapters.memory.store import StoreUnavailable

    store = make_store(_settings(uri))
    try:
        store.open()
    except StoreUnavailable as e:
        err.print(f"[red]error:[/] {e}")
        raise typer.Exit(1)
    if store.problem:
        err.print(f"[yellow]warning:[/] {store.problem}")
    for note in store.notes:  # a shared memory out of reach: these commands work on the local copy
        err.print(f"[yellow]warning:[/] {note}")
    store.notes.clear()
    return store


def _out(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@memory_app.command()
def stats(memory: Optional[str] = MemoryOption) -> None:
    """Rows per table and project, size on disk, schema version, embedder, indexes."""
    store = _open(memory)
    projects: dict[str, int] = {}
    for row in store.rows("failures", "", ["project"], limit=max(store.count("failures"), 1)):
        projects[row["project"]] = projects.get(row["project"], 0) + 1
    _out({
        "uri": store.uri or default_uri(),
        "schema_version": store.meta().get("schema_version"),
        "embedder": store.embedder.name,
        "rows": {name: store.count(name) for name in EXPORT_TABLES},
        "fixed_failures": store.count("failures", "fixed = true"),
        "projects": projects,
        "disk_bytes": store.disk_bytes(),
        "versions": {name: store.table(name).version for name in EXPORT_TABLES},
        "indexes": [str(i) for i in store.table("failures").list_indices()],
        "max_rows": store.max_rows,
        **({"shared": {"uri": store.remote_uri, "share": store.share, "queued": store.outbox.pending(),
                       "offline": store.offline}} if hasattr(store, "remote_uri") else {}),
    })


@memory_app.command()
def sharing(share: Optional[str] = typer.Option(None, "--share", help="List this mode instead of yours: "
                                                "fixes-only | fixes-and-stats | all.")) -> None:
    """What leaves this machine for a team's memory (memory.share): per table, which rows, which columns, how cleaned."""
    from fixloop.core.sharing import SHARES
    from fixloop.adapters.memory.leaving import listing

    settings = _settings(None)
    mode = share or settings.share
    if mode not in SHARES:
        err.print(f"[red]error:[/] --share {mode!r} is not one of {', '.join(SHARES)}")
        raise typer.Exit(2)
    shared = "://" in settings.uri and not settings.uri.startswith("file://")
    _out({**listing(mode), "yours": settings.share, "shared_memory": settings.uri if shared else ""})


@memory_app.command()
def search(text: str = typer.Argument(..., help="Words of an error message or code."),
           limit: int = typer.Option(10, "--limit", "-k", min=1, max=200),
           memory: Optional[str] = MemoryOption) -> None:
    """Past failures most similar to TEXT, with the fix that worked."""
    store = _open(memory)
    hits = store.similar(query_text(text), k=limit, columns=("id", "project", "signature", "test_id", "fixed"))
    fixes = {}
    ids = [row["id"] for row, _ in hits]
    if ids:
        for fix in store.rows("fixes", "failure_id IN (" + ", ".join(quote(i) for i in ids) + ")"):
            fixes.setdefault(fix["failure_id"], fix)
    _out([{"id": row["id"], "similarity": round(sim, 4), "signature": row["signature"], "test_id": row["test_id"],
           "project": row["project"], "fixed": row["fixed"],
           "fix": fixes[row["id"]]["summary"] if row["id"] in fixes else ""} for row, sim in hits])


@memory_app.command()
def show(row_id: str = typer.Argument(..., metavar="ID"), memory: Optional[str] = MemoryOption) -> None:
    """One stored row (failure, fix, decision or operator event) and the rows linked to it."""
    store = _open(memory)
    q = quote(row_id)
    for name in EXPORT_TABLES:
        found = store.rows(name, f"id = {q}")
        if found:
            linked: dict[str, list[dict[str, Any]]] = {}
            if name == "failures":
                linked["fixes"] = store.rows("fixes", f"failure_id = {q}")
            if name == "fixes":
                linked["decisions"] = store.rows("decisions", f"fix_id = {q}")
            _out({"table": name, "row": found[0], **linked})
            return
    err.print(f"[red]error:[/] no row with id {row_id}")
    raise typer.Exit(1)


@memory_app.command()
def forget(row_id: str = typer.Argument(..., metavar="ID"), memory: Optional[str] = MemoryOption) -> None:
    """Delete a row and the rows that hang off it (a failure's fixes, a fix's decisions)."""
    from fixloop.adapters.memory.learning import LearningMemory

    store = _open(memory)
    removed = LearningMemory(store, "").forget(row_id)
    if not removed:
        err.print(f"[red]error:[/] no row with id {row_id}")
        raise typer.Exit(1)
    err.print(f"removed {removed} row(s)")


def _export_lines(store: MemoryStore) -> Iterator[dict[str, Any]]:
    from fixloop.adapters.memory import schema

    yield {"fixloop_memory_export": EXPORT_FORMAT, "schema_version": schema.SCHEMA_VERSION}
    for name in EXPORT_TABLES:
        for row in store.rows(name, "", limit=max(store.count(name), 1)):
            row.pop("embedder", None)
            yield {"table": name, **row}


@memory_app.command("export")
def export_(file: Path = typer.Argument(..., help="JSON lines file to write ('-' for stdout)."),
            memory: Optional[str] = MemoryOption) -> None:
    """Write every row as JSON lines (vectors are left out: the importer re-embeds)."""
    store = _open(memory)
    count = 0
    if str(file) == "-":
        for line in _export_lines(store):
            sys.stdout.write(json.dumps(line, default=str) + "\n")
            count += 1
    else:
        tmp = file.with_name(file.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for line in _export_lines(store):
                fh.write(json.dumps(line, default=str) + "\n")
                count += 1
        tmp.replace(file)  # never a half-written export under the real name
    err.print(f"exported {count - 1} row(s)")


def _read_import(fh: TextIO) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    from fixloop.adapters.memory import schema

    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in EXPORT_TABLES}
    problems: list[str] = []
    for number, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as e:
            problems.append(f"line {number}: not JSON ({e})")
            continue
        if not isinstance(data, dict):
            problems.append(f"line {number}: not a JSON object")
            continue
        if "fixloop_memory_export" in data:
            if data["fixloop_memory_export"] != EXPORT_FORMAT:
                problems.append(f"line {number}: export format {data['fixloop_memory_export']} is not {EXPORT_FORMAT}")
            continue
        table = data.pop("table", None)
        if table not in rows:
            problems.append(f"line {number}: unknown table {table!r}")
            continue
        wanted = schema.schema_for(table, 1)
        names = {f.name for f in wanted} - {"vector", "embedder"}
        if not isinstance(data.get("id"), str) or not data["id"]:
            problems.append(f"line {number}: a row needs a string id")
            continue
        if table == "failures" and not isinstance(data.get("text"), str):
            problems.append(f"line {number}: a failure needs its text")
            continue
        rows[table].append({k: v for k, v in data.items() if k in names})
    return rows, problems


@memory_app.command("import")
def import_(file: Path = typer.Argument(..., help="JSON lines written by `fixloop memory export`."),
            memory: Optional[str] = MemoryOption) -> None:
    """Add the rows of FILE that this store does not have yet (matched by id)."""
    if not file.is_file():
        err.print(f"[red]error:[/] {file} is not a file")
        raise typer.Exit(2)
    with file.open(encoding="utf-8", errors="replace") as fh:
        rows, problems = _read_import(fh)
    for p in problems[:20]:
        err.print(f"[yellow]skipped[/] {p}")
    from fixloop.adapters.memory import schema

    store = _open(memory)
    total = 0
    for name, batch in rows.items():
        wanted = schema.schema_for(name, store.embedder.dim)
        for row in batch:
            for f in wanted:
                if f.name not in ("vector", "embedder"):
                    row.setdefault(f.name, "" if str(f.type) == "string" else (False if str(f.type) == "bool" else 0))
        for start in range(0, len(batch), 5000):
            store.upsert(name, batch[start:start + 5000])
        total += len(batch)
    err.print(f"imported {total} row(s) ({len(problems)} skipped); rows already present were kept")


@memory_app.command()
def compact(memory: Optional[str] = MemoryOption,
            no_index: bool = typer.Option(False, "--no-index", help="Do not build the vector index.")) -> None:
    """Merge small files, drop old versions, remove crash leftovers, index a large store."""
    store = _open(memory)
    removed = store.enforce_cap()
    report = store.compact(build_index=not no_index)
    _out({"evicted": removed, **report, "disk_bytes": store.disk_bytes()})


def _shared(uri: Optional[str]) -> Any:
    from fixloop.adapters.memory.shared import SharedStore

    store = _open(uri)
    if not isinstance(store, SharedStore):
        err.print("[red]error:[/] the memory is not shared: set memory.uri (or --memory / FIXLOOP_MEMORY) to an "
                  "s3://, gs:// or az:// location")
        raise typer.Exit(2)
    return store


def _remote_or_exit(store: Any) -> None:
    try:
        store.remote()
    except Exception as e:
        from fixloop.adapters.memory.remote import explain

        err.print(f"[red]error:[/] {explain(store.remote_uri, e)}; nothing was moved, every row is kept locally")
        raise typer.Exit(1)


@memory_app.command()
def sync(memory: Optional[str] = MemoryOption) -> None:
    """Push the queued rows to the shared memory and pull what the team wrote (a shared memory only)."""
    store = _shared(memory)
    report = store.sync(wait=True)
    _out({"uri": store.remote_uri, **report})
    if "error" in report:
        err.print(f"[red]error:[/] {report['error']}; {report.get('pending', 0)} row(s) stay queued")
        raise typer.Exit(1)


ProjectOption = typer.Option(..., "--project", help="The project's name in the shared memory (or its folder).")


@memory_app.command()
def push(project: str = ProjectOption, memory: Optional[str] = MemoryOption) -> None:
    """Share every cached row of one project that the shared memory lacks (as memory.share allows)."""
    store = _shared(memory)
    _remote_or_exit(store)
    name = _project(project)
    _out({"uri": store.remote_uri, "project": name, "pushed": store.push_project(name)})


@memory_app.command()
def pull(project: str = ProjectOption, memory: Optional[str] = MemoryOption) -> None:
    """Copy one project's shared rows into the local cache (those it lacks)."""
    store = _shared(memory)
    _remote_or_exit(store)
    name = _project(project)
    _out({"uri": store.remote_uri, "project": name, "pulled": store.pull_project(name)})


def _project(project: str) -> str:
    """A folder given as the project means its name, as the shared memory knows it."""
    from fixloop.adapters.memory.privacy import project_name

    return project_name(str(Path(project).resolve())) if Path(project).is_dir() else project


"""A team's memory on object storage, used through a local cache.

`SharedStore` is the store the learning memory reads and writes: an ordinary LanceDB directory in
the user's data folder (the cache), plus the write-ahead queue of rows to share. Lookups read the
cache only, so they never wait on the network. A sync pushes the queued rows (redacted, filtered by
`memory.share`) to the shared store, a second LanceDB connection on `memory.uri`, and pulls the rows
other machines wrote. It runs when the store is first used and after each run's writes; when the
bucket is out of reach the run goes on with the cache, says so once, and the queue waits for the
next sync (`fixloop memory sync`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any, Sequence

from fixloop.core.sharing import DEFAULT_SHARE
from fixloop.adapters.memory import schema
from fixloop.adapters.memory.embed import Embedder
from fixloop.adapters.memory.outbox import Outbox
from fixloop.adapters.memory.privacy import FORGOTTEN, shareable
from fixloop.adapters.memory.remote import explain
from fixloop.adapters.memory.store import MemoryStore, StoreUnavailable
from fixloop.adapters.memory.sync import ALL_ROWS, pull, push_ids, push_project

log = logging.getLogger("fixloop.adapters.memory")
RETRY_SECONDS = 30.0  # after a failed sync, automatic syncs wait this long (an explicit one never waits)


def cache_folder(uri: str) -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "fixloop" / "shared" / hashlib.sha256(uri.encode()).hexdigest()[:16]


class RemoteStore(MemoryStore):
    """The shared store itself. Unlike a local store it is never moved aside or rewritten: a store of
    another schema version or embedder is refused with the setting to change."""

    def _migrate(self) -> None:
        meta = self.meta()
        version = int(meta.get("schema_version", "0") or 0)
        if version > schema.SCHEMA_VERSION:
            raise StoreUnavailable(f"it holds schema version {version}, newer than this fixloop writes "
                                   f"({schema.SCHEMA_VERSION}): upgrade fixloop on this machine, or point "
                                   "memory.uri at another prefix")
        embedder = meta.get("embedder")
        if embedder not in (None, "", self.embedder.name):
            raise StoreUnavailable(f"it was written with the embedder {embedder}, this machine uses "
                                   f"{self.embedder.name}: set memory.embedder alike on every machine sharing it")
        updates = {k: v for k, v in (("schema_version", str(schema.SCHEMA_VERSION)), ("embedder", self.embedder.name))
                   if meta.get(k) != v}
        if updates:
            self._set_meta(updates)


class SharedStore(MemoryStore):
    def __init__(self, remote_uri: str, embedder: Embedder, share: str = DEFAULT_SHARE, folder: Path | None = None,
                 max_rows: int = 200_000, index_threshold: int = 50_000, retry_seconds: float = RETRY_SECONDS) -> None:
        self.folder = folder or cache_folder(remote_uri)
        super().__init__(str(self.folder / "cache"), embedder, max_rows, index_threshold)
        self.remote_uri = remote_uri
        self.share = share
        self.outbox = Outbox(self.folder)
        self.retry_seconds = retry_seconds
        self.offline = ""  # why the shared store was out of reach at the last sync ('' = it answered)
        self._told = False
        self._failed_at = -1e18
        self._remote: RemoteStore | None = None

    def open(self) -> "SharedStore":
        if self._ready:
            return self
        with self._opening:  # one thread opens and syncs; another waits for it (LearningMemory.warm)
            fresh = self._db is None
            super().open()
            if fresh:
                self.sync(wait=False)
        return self

    def add(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        # Queued first: a row in the cache is always queued, a row killed on its way is in neither.
        self.outbox.put(name, [r["id"] for r in rows if r.get("id") and shareable(name, r, self.share)])
        super().add(name, rows)

    def forget(self, name: str, where: str) -> int:
        """Forgetting sticks on a team's memory: the ids are written down and queued, then deleted from the
        shared store at the next push and from every other machine's copy at its next pull."""
        ids = [r["id"] for r in self.rows(name, where, ["id"], limit=ALL_ROWS)]
        removed = super().forget(name, where)
        if ids:
            self.add(FORGOTTEN, [{"id": i, "table": name, "time": time.time()} for i in ids])
        return removed

    def flush(self) -> None:
        self.sync(wait=False, pull=False)

    def remote(self) -> RemoteStore:
        if self._remote is None:
            self._remote = RemoteStore(self.remote_uri, self.embedder).open()
        return self._remote

    # ---- sync ----------------------------------------------------------------------------------

    def _state(self) -> dict[str, int]:
        try:
            data = json.loads((self.folder / "pulled.json").read_text(encoding="utf-8"))
            return {str(k): int(v) for k, v in data.get(self.remote_uri, {}).items()}
        except (OSError, ValueError, AttributeError, TypeError):
            return {}

    def _save_state(self, seen: dict[str, int]) -> None:
        tmp = self.folder / f"pulled.json.{os.getpid()}"
        tmp.write_text(json.dumps({self.remote_uri: seen}), encoding="utf-8")
        os.replace(tmp, self.folder / "pulled.json")

    def sync(self, wait: bool = True, pull: bool = True) -> dict[str, Any]:
        """Push the queue, then pull what others wrote. `wait=False` (automatic syncs) skips when
        another process is syncing or a sync failed less than `retry_seconds` ago."""
        if not wait and time.monotonic() - self._failed_at < self.retry_seconds:
            return {"skipped": "the shared store failed a moment ago", "pending": self.outbox.pending()}
        report: dict[str, Any] = {"pushed": 0, "pulled": 0}
        t0 = time.monotonic()
        try:
            with self.outbox.sending(wait) as paths:
                if paths is None:
                    return {"skipped": "another process is syncing", "pending": self.outbox.pending()}
                if paths:
                    report["pushed"] = push_ids(self, self.remote(), self.outbox.read(paths), self.share)
                    for path in paths:  # only now: the shared store committed every row of them
                        path.unlink()
                if pull:
                    seen = self._state()
                    report["pulled"] = _pull(self, self.remote(), seen)
                    self._save_state(seen)
        except Exception as e:  # out of reach or refused: the cache and the queue carry on
            self._went_offline(e)
            return {**report, "error": self.offline, "pending": self.outbox.pending()}
        if self.offline:
            log.info("shared memory %s is reachable again", self.remote_uri)
        self.offline = ""
        return {**report, "seconds": round(time.monotonic() - t0, 3), "pending": self.outbox.pending()}

    def _went_offline(self, error: BaseException) -> None:
        self._remote = None
        self._failed_at = time.monotonic()
        self.offline = explain(self.remote_uri, error)
        if self._told:
            return
        self._told = True  # once per process, however many syncs fail
        message = (f"{self.offline}; going on with the local copy, new rows are queued "
                   "and sync later (`fixloop memory sync`)")
        self.notes.append(message)
        log.warning("%s", message)

    def push_project(self, project: str) -> int:
        return push_project(self, self.remote(), project, self.share)

    def pull_project(self, project: str) -> int:
        return _pull(self, self.remote(), None, project)


def _pull(cache: MemoryStore, remote: MemoryStore, seen: dict[str, int] | None, project: str = "") -> int:
    return pull(cache, remote, project, seen)

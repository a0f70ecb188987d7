"""The write-ahead queue of the shared memory: ids of local rows not yet in the shared store.

One JSON line per written batch, appended (O_APPEND, fsync) before the rows reach the local cache,
so a row the cache holds is always queued. A sync first moves the queue file aside under an
exclusive lock (writers append under a shared one, so no line lands in a file already read), pushes,
and deletes the moved file only after the shared store committed: a killed sync leaves it for the
next one, and the push is idempotent by id. A torn last line (killed mid-write) is skipped: its rows
never reached the cache either.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

QUEUE = "outbox.jsonl"
SENDING = "sending-"


class Outbox:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextmanager
    def _lock(self, name: str, mode: int) -> Iterator[bool]:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / name, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, mode)
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # closing releases the lock

    def put(self, table: str, ids: Sequence[str]) -> None:
        if not ids:
            return
        line = (json.dumps({"table": table, "ids": list(ids), "time": time.time()}) + "\n").encode()
        with self._lock("queue.lock", fcntl.LOCK_SH):
            fd = os.open(self.folder / QUEUE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)

    @contextmanager
    def sending(self, wait: bool = True) -> Iterator[list[Path] | None]:
        """The queue files to push (the current queue moved aside, plus any a killed sync left), held
        under the sync lock; None when another process is syncing and `wait` is false."""
        mode = fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB)
        with self._lock("sync.lock", mode) as held:
            if not held:
                yield None
                return
            with self._lock("queue.lock", fcntl.LOCK_EX):
                queue = self.folder / QUEUE
                if queue.exists() and queue.stat().st_size:
                    os.replace(queue, self.folder / f"{SENDING}{time.time_ns()}-{os.getpid()}.jsonl")
            yield sorted(self.folder.glob(f"{SENDING}*.jsonl"))

    @staticmethod
    def read(paths: Sequence[Path]) -> dict[str, list[str]]:
        """table -> queued ids, in order, each once."""
        out: dict[str, dict[str, None]] = {}
        for path in paths:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                    table, ids = str(entry["table"]), [str(i) for i in entry["ids"]]
                except (ValueError, KeyError, TypeError):
                    continue  # a torn line of a killed writer
                out.setdefault(table, {}).update(dict.fromkeys(ids))
        return {t: list(ids) for t, ids in out.items()}

    def pending(self) -> int:
        paths = [p for p in [self.folder / QUEUE, *self.folder.glob(f"{SENDING}*.jsonl")] if p.exists()]
        return sum(len(ids) for ids in self.read(paths).values())

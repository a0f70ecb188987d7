"""The trust ledger on disk: `$XDG_DATA_HOME/fixloop/trust.json`, the user's own file (a grant lets fixes into
the editor's buffers without asking, so no project, run or teammate's memory may write it).

Every change is read-modify-write under an exclusive lock (the language server and `fixloop trust` may change
it at once) and lands by an atomic rename, so a killed process leaves the old ledger or the new one. A file
that cannot be read is moved aside, named in `problem`, and the ledger starts empty: it grants nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from fixloop.core.trust import Ledger
from fixloop.kit.replace_file import replace_text

T = TypeVar("T")
MAX_BYTES = 4_000_000


def default_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "fixloop" / "trust.json"


class LedgerFile:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.problem = ""  # what was wrong with the file, said once by whoever reads it

    def read(self) -> Ledger:
        with self._locked():
            return self._load()

    def change(self, step: Callable[[Ledger], T]) -> T:
        """Apply `step` to the ledger as it is on disk now, and write the result back."""
        with self._locked():
            ledger = self._load()
            out = step(ledger)
            self._write(ledger)
            return out

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _load(self) -> Ledger:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return Ledger()
        except OSError as e:
            return self._aside(f"cannot open it ({e})")
        try:
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError as e:
            return self._aside(f"cannot read it ({e})")
        if len(data) > MAX_BYTES:
            return self._aside(f"it is over {MAX_BYTES} bytes")
        try:
            return Ledger.from_json(json.loads(data.decode("utf-8")))
        except (UnicodeDecodeError, ValueError) as e:
            return self._aside(f"it is not the JSON fixloop writes ({e})")

    def _aside(self, why: str) -> Ledger:
        moved = self.path.with_name(f"{self.path.name}.unreadable-{int(time.time())}")
        try:
            os.replace(self.path, moved)
            where = f"moved to {moved}"
        except OSError:
            where = "left where it is"
        self.problem = f"the trust ledger {self.path} was unreadable: {why}; {where}; no fix is applied without asking"
        return Ledger()

    def _write(self, ledger: Ledger) -> None:
        replace_text(self.path, json.dumps(ledger.to_json(), indent=1))

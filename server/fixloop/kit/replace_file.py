"""A file of the user's written whole or not at all: a temporary file beside it, synced, renamed over it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_text(path: Path, text: str, mode: int = 0o600) -> None:
    """`path` holds `text` afterwards (with `mode`), or what it held before: a killed process or a full disk
    never leaves half of it under its name."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

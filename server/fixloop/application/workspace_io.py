"""The only code that writes user files: atomic, and only over the exact bytes a run started from."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fixloop.core.model import Patch
from fixloop.kit.source_text import encode_source


@dataclass(frozen=True)
class ApplyResult:
    written: tuple[str, ...]
    conflicts: tuple[str, ...]
    said: tuple[str, ...] = ()  # what the user's on_apply hook answered

    @property
    def ok(self) -> bool:
        return not self.conflicts


def _temp_copy(path: Path, data: bytes) -> str:
    """Write `data` to a synced temp file beside `path`, with its mode; the caller renames it over."""
    st = os.stat(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".fixloop-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        return tmp
    except BaseException:
        _discard(tmp)
        raise


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def atomic_write(path: Path, data: bytes) -> None:
    """Temp file in the same directory, fsync, keep the mode, rename over: never half-written."""
    os.replace(_temp_copy(path, data), path)


def apply_patch(workspace: Path, patch: Patch, originals: dict[str, bytes], encodings: dict[str, str]) -> ApplyResult:
    """Write every changed file, but only if each is still byte-identical to `originals`.
    All or nothing: every temp file is written first; a failed rename puts the earlier files back."""
    conflicts: list[str] = []
    real_root = workspace.resolve()
    targets: list[tuple[Path, bytes, bytes]] = []
    for change in patch.changes:
        path = workspace / change.path
        resolved = path.resolve()
        if path.is_symlink() or real_root not in resolved.parents:
            conflicts.append(f"{change.path}: not a regular file inside the workspace")
            continue
        try:
            current = path.read_bytes()
        except OSError as e:
            conflicts.append(f"{change.path}: cannot read ({e.strerror})")
            continue
        if change.path not in originals or current != originals[change.path]:
            conflicts.append(f"{change.path}: changed since the run started")
            continue
        try:
            data = encode_source(change.after, encodings.get(change.path, "utf-8"))
        except UnicodeEncodeError as e:
            conflicts.append(f"{change.path}: the fix cannot be written in {encodings.get(change.path)} ({e.reason})")
            continue
        targets.append((path, data, current))
    if conflicts:
        return ApplyResult((), tuple(conflicts))
    temps: list[str] = []
    try:
        for path, data, _ in targets:
            temps.append(_temp_copy(path, data))
    except OSError as e:
        for tmp in temps:
            _discard(tmp)
        return ApplyResult((), (f"nothing was written: {e.strerror or e} ({e.filename or ''})",))
    done: list[tuple[Path, bytes]] = []
    for (path, _, current), tmp in zip(targets, temps):
        try:
            os.replace(tmp, path)
            done.append((path, current))
        except OSError as e:
            for tmp_left in temps[len(done):]:
                _discard(tmp_left)
            for written, old in reversed(done):
                atomic_write(written, old)
            return ApplyResult((), (f"nothing was written: {path.name}: {e.strerror or e}",))
    return ApplyResult(tuple(c.path for c in patch.changes), ())

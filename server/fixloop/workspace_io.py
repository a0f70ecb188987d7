"""The only code that writes user files: atomic, and only over the exact bytes a run started from."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .core.model import Patch
from .runner.scratch import encode_source


@dataclass(frozen=True)
class ApplyResult:
    written: tuple[str, ...]
    conflicts: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.conflicts


def atomic_write(path: Path, data: bytes) -> None:
    """Temp file in the same directory, fsync, keep the mode, rename over: never half-written."""
    st = os.stat(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".fixloop-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def apply_patch(workspace: Path, patch: Patch, originals: dict[str, bytes], encodings: dict[str, str]) -> ApplyResult:
    """Write every changed file, but only if each is still byte-identical to `originals`.
    Nothing is written when any file conflicts."""
    conflicts: list[str] = []
    real_root = workspace.resolve()
    targets: list[tuple[Path, bytes]] = []
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
        targets.append((path, encode_source(change.after, encodings.get(change.path, "utf-8"))))
    if conflicts:
        return ApplyResult((), tuple(conflicts))
    for path, data in targets:
        atomic_write(path, data)
    return ApplyResult(tuple(c.path for c in patch.changes), ())

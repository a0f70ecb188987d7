"""The scratch copy: the workspace files the user's VCS would keep, copied outside the project."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import tokenize
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Callable

from ..sandbox.hostio import read_beneath, unlink_beneath, write_beneath
from .project_files import SECRET_FILES, SKIP_DIRS, _is_secret, copy_tree, list_files  # noqa: F401

MAX_SOURCE_BYTES = 1_000_000  # generated or huge files are not sources we edit


@dataclass(frozen=True)
class SourceFile:
    text: str
    encoding: str
    raw: bytes


def decode_source(raw: bytes) -> SourceFile | None:
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(raw).readline)
        return SourceFile(raw.decode(encoding), encoding, raw)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


def encode_source(text: str, encoding: str) -> bytes:
    data = text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    return (b"\xef\xbb\xbf" + data) if encoding == "utf-8-sig" else data


class Scratch:
    """A temporary copy of a workspace, removed by `close()`."""

    def __init__(self, workspace: Path, overlays: dict[str, str] | None = None) -> None:
        self.workspace = workspace
        self.base = Path(tempfile.mkdtemp(prefix="fixloop-"))
        self.root = self.base / "ws"
        self.root.mkdir()
        self.names = list_files(workspace)
        copy_tree(workspace, self.root, self.names)
        self.files: dict[str, SourceFile] = {}
        for name in self.names:
            if not name.endswith(".py"):
                continue
            path = self.root / name
            try:
                if path.is_symlink() or path.stat().st_size > MAX_SOURCE_BYTES:
                    continue
                decoded = decode_source(path.read_bytes())
            except OSError:
                continue
            if decoded is not None:
                self.files[name] = decoded
        # What the run started from on disk: applying a fix later is refused if these changed.
        self.disk: dict[str, bytes] = {name: f.raw for name, f in self.files.items()}
        for name, text in (overlays or {}).items():
            self._overlay(name, text)
        # Code under test can rewrite any file of the copy; `reset()` brings back this pristine state
        # so one candidate's run can never tamper with the tests or the report plugin of the next.
        self.pristine = self.base / "pristine"
        shutil.copytree(self.root, self.pristine, symlinks=True)
        self.stamps: dict[str, tuple[int, int, int, int]] = {}
        for name in list(self.names) + list(overlays or {}):
            self._stamp(name)
        os.chmod(self.base, 0o755)

    def _stamp(self, name: str) -> None:
        try:
            st = os.lstat(self.root / name)
        except OSError:
            return
        if stat.S_ISREG(st.st_mode):
            # ctime and inode cannot be set back by code under test (mtime can, with os.utime).
            self.stamps[name] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)

    def add_file(self, name: str, data: bytes) -> None:
        """A file fixloop itself puts into the copy (the report plugin), protected like the project's."""
        write_beneath(self.root, name, data)
        write_beneath(self.pristine, name, data)
        self._stamp(name)

    def reset(self, keep: Callable[[str], bool] = lambda rel: False) -> list[str]:
        """Bring the copy back to its pristine state: restore every changed, moved or replaced file and
        remove everything a run added (except what `keep` accepts). Returns what it touched."""
        touched: list[str] = []
        try:
            touched += self._sweep(keep)
            for name in list(self.stamps):
                try:
                    st = os.lstat(self.root / name)
                    now = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
                    if stat.S_ISREG(st.st_mode) and now == self.stamps[name]:
                        continue
                except OSError:
                    pass
                original = (self.pristine / name).read_bytes()
                try:
                    if read_beneath(self.root, name, len(original) + 1) == original:
                        self._stamp(name)
                        continue
                except (OSError, ValueError):
                    pass
                unlink_beneath(self.root, name)
                write_beneath(self.root, name, original)
                self._stamp(name)
                touched.append(name)
        except (OSError, ValueError):
            # A directory was swapped for a symlink or similar: rebuild the whole copy.
            names = list(self.stamps)
            shutil.rmtree(self.root, ignore_errors=True)
            shutil.copytree(self.pristine, self.root, symlinks=True)
            self.stamps.clear()
            for name in names:
                self._stamp(name)
            touched.append("*")
        return touched

    def _sweep(self, keep: Callable[[str], bool]) -> list[str]:
        """Remove entries that are not in the pristine copy (a planted conftest.py, sitecustomize, ...)."""
        removed: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.root):  # never follows symlinks
            rel_dir = os.path.relpath(dirpath, self.root)
            for name in list(dirnames) + filenames:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                if keep(rel) or os.path.lexists(self.pristine / rel):
                    continue
                path = Path(dirpath) / name
                if name in dirnames and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                    dirnames.remove(name)
                else:
                    os.unlink(path)
                    if name in dirnames:
                        dirnames.remove(name)
                removed.append(rel)
        return removed

    def _overlay(self, name: str, text: str) -> None:
        if name not in self.files and not (self.root / name).parent.resolve().is_relative_to(self.root.resolve()):
            return
        encoding = self.files[name].encoding if name in self.files else "utf-8"
        raw = encode_source(text, encoding)
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        self.files[name] = SourceFile(text, encoding, raw)

    def sources(self) -> dict[str, str]:
        return {name: f.text for name, f in self.files.items()}

    def encoded(self, name: str, text: str) -> bytes:
        return encode_source(text, self.files[name].encoding if name in self.files else "utf-8")

    def write(self, name: str, text: str) -> None:
        path = self.root / name
        if path.is_symlink() or not path.resolve().is_relative_to(self.root.resolve()):
            raise ValueError(f"refusing to write {name}: outside the scratch copy")
        # Sandboxed code may have swapped a directory for a symlink since the check: never follow one.
        write_beneath(self.root, name, self.encoded(name, text))

    def restore(self, name: str) -> None:
        if name in self.files:
            write_beneath(self.root, name, self.files[name].raw)
        else:
            unlink_beneath(self.root, name)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

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

from ..sandbox.hostio import read_beneath, unlink_beneath, write_beneath

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "__pycache__", ".pytest_cache", ".mypy_cache",
    ".ruff_cache", ".tox", ".nox", "node_modules", ".fixloop", ".eggs", "build", "dist", ".idea", ".vscode",
})
MAX_SOURCE_BYTES = 1_000_000  # generated or huge files are not sources we edit


@dataclass(frozen=True)
class SourceFile:
    text: str
    encoding: str
    raw: bytes


def list_files(root: Path) -> list[str]:
    """Files git would track (tracked or not ignored); without git, a walk that skips the usual clutter."""
    names: list[str] | None = None
    if (root / ".git").exists() and shutil.which("git"):
        try:
            out = subprocess.run(
                ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                capture_output=True, timeout=30, check=True,
            ).stdout
            names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
        except (subprocess.SubprocessError, OSError):
            names = None
    if names is None:
        names = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")]
            rel = os.path.relpath(dirpath, root)
            for f in filenames:
                names.append(f if rel == "." else os.path.join(rel, f).replace(os.sep, "/"))
    return sorted(n for n in names if not (set(n.split("/")[:-1]) & SKIP_DIRS))


def copy_tree(root: Path, dest: Path, names: list[str]) -> None:
    """Copy regular files; keep only symlinks that stay inside the workspace; skip special files."""
    real_root = root.resolve()
    for name in names:
        src = root / name
        try:
            st = os.lstat(src)
        except OSError:
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if stat.S_ISLNK(st.st_mode):
            resolved = src.resolve()
            if resolved == real_root or real_root in resolved.parents:
                os.symlink(os.path.relpath(resolved, (real_root / name).parent), target)
        elif stat.S_ISREG(st.st_mode):
            shutil.copy2(src, target, follow_symlinks=False)


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
        self.stamps: dict[str, tuple[int, int]] = {}
        for name in list(self.names) + list(overlays or {}):
            self._stamp(name)
        os.chmod(self.base, 0o755)

    def _stamp(self, name: str) -> None:
        try:
            st = os.lstat(self.root / name)
        except OSError:
            return
        if stat.S_ISREG(st.st_mode):
            self.stamps[name] = (st.st_size, st.st_mtime_ns)

    def add_file(self, name: str, data: bytes) -> None:
        """A file fixloop itself puts into the copy (the report plugin), protected like the project's."""
        write_beneath(self.root, name, data)
        write_beneath(self.pristine, name, data)
        self._stamp(name)

    def reset(self) -> list[str]:
        """Restore every protected file that a run changed, moved or replaced; returns their names."""
        restored: list[str] = []
        try:
            for name, stamp in self.stamps.items():
                try:
                    st = os.lstat(self.root / name)
                    same = stat.S_ISREG(st.st_mode) and (st.st_size, st.st_mtime_ns) == stamp
                except OSError:
                    same = False
                if same:
                    continue
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
                restored.append(name)
        except (OSError, ValueError):
            # A directory was swapped for a symlink or similar: rebuild the whole copy.
            shutil.rmtree(self.root, ignore_errors=True)
            shutil.copytree(self.pristine, self.root, symlinks=True)
            self.stamps.clear()
            for name in list(self.names):
                self._stamp(name)
            restored.append("*")
        return restored

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

    def write(self, name: str, text: str) -> None:
        path = self.root / name
        if path.is_symlink() or not path.resolve().is_relative_to(self.root.resolve()):
            raise ValueError(f"refusing to write {name}: outside the scratch copy")
        encoding = self.files[name].encoding if name in self.files else "utf-8"
        # Sandboxed code may have swapped a directory for a symlink since the check: never follow one.
        write_beneath(self.root, name, encode_source(text, encoding))

    def restore(self, name: str) -> None:
        if name in self.files:
            write_beneath(self.root, name, self.files[name].raw)
        else:
            unlink_beneath(self.root, name)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

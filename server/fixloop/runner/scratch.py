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
from typing import Mapping

from ..sandbox.api import RunTree
from ..sandbox.hostio import write_beneath

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "__pycache__", ".pytest_cache", ".mypy_cache",
    ".ruff_cache", ".tox", ".nox", "node_modules", ".fixloop", ".eggs", "build", "dist", ".idea", ".vscode",
})
SECRET_FILES = frozenset({".netrc", ".pypirc", ".npmrc", "credentials.json", ".git-credentials"})
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
            # The repository is untrusted: no fsmonitor or hook command from its config, no secrets in env.
            out = subprocess.run(
                ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-C", str(root),
                 "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                capture_output=True, timeout=30, check=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"},
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
    return sorted(n for n in names if not (set(n.split("/")[:-1]) & SKIP_DIRS) and not _is_secret(n))


def _is_secret(name: str) -> bool:
    """Credential files stay out of the copy: code under test has no business reading them."""
    base = name.rsplit("/", 1)[-1]
    return (base == ".env" or base.startswith(".env.") or base in SECRET_FILES
            or base.endswith((".pem", ".key", ".p12")) or base.startswith("id_rsa") or base.startswith("id_ed25519"))


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
    """The host's private copy of a workspace, removed by `close()`.

    `base` (0700, private to the user) holds `src`, the pristine copy made before anything runs, and
    `runtime`, fixloop's own files for the run. Neither is ever writable by sandboxed code: each run
    gets a fresh copy of `src` from its sandbox backend (see `RunTree`), so nothing a run plants can
    reach the next run or the host.
    """

    def __init__(self, workspace: Path, overlays: dict[str, str] | None = None) -> None:
        self.workspace = workspace
        self.base = Path(tempfile.mkdtemp(prefix="fixloop-"))  # 0700: other local users see nothing
        self.root = self.base / "src"
        self.root.mkdir()
        self.runtime = self.base / "runtime"
        self.runtime.mkdir()
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

    def add_runtime(self, name: str, data: bytes) -> Path:
        """One of fixloop's own files for the runs (the report plugin, the warm worker), read-only to them."""
        write_beneath(self.runtime, name, data)
        return self.runtime / name

    def tree(self, changes: Mapping[str, bytes] | None = None) -> RunTree:
        """What a run starts from: the pristine copy with `changes` written over its fresh copy."""
        return RunTree(self.root, dict(changes or {}), self.runtime)

    def _overlay(self, name: str, text: str) -> None:
        if name not in self.files and not (self.root / name).parent.resolve().is_relative_to(self.root.resolve()):
            return
        encoding = self.files[name].encoding if name in self.files else "utf-8"
        raw = encode_source(text, encoding)
        write_beneath(self.root, name, raw)
        self.files[name] = SourceFile(text, encoding, raw)

    def sources(self) -> dict[str, str]:
        return {name: f.text for name, f in self.files.items()}

    def encoded(self, name: str, text: str) -> bytes:
        return encode_source(text, self.files[name].encoding if name in self.files else "utf-8")

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

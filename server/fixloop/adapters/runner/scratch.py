"""The scratch copy: the workspace files the user's VCS would keep, copied outside the project."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from fixloop.adapters.sandbox.api import RunTree
from fixloop.adapters.sandbox.hostio import write_beneath
from fixloop.adapters.runner.listing import CopyRule, listing
from fixloop.adapters.runner.project_files import copy_tree
from fixloop.kit.source_text import MAX_SOURCE_BYTES, SourceFile, decode_source, encode_source

class Scratch:
    """The host's private copy of a workspace, removed by `close()`.

    `base` (0700, private to the user) holds `src`, the pristine copy made before anything runs, and
    `runtime`, fixloop's own files for the run. Neither is ever writable by sandboxed code: each run
    gets a fresh copy of `src` from its sandbox backend (see `RunTree`), so nothing a run plants can
    reach the next run or the host.
    """

    def __init__(self, workspace: Path, overlays: dict[str, str] | None = None, rule: CopyRule = CopyRule()) -> None:
        self.workspace = workspace
        self.at = Path(os.path.realpath(workspace))  # where the runs see the copy (`RunTree.at`)
        self.base = Path(tempfile.mkdtemp(prefix="fixloop-"))  # 0700: other local users see nothing
        self.root = self.base / "src"
        self.root.mkdir()
        self.runtime = self.base / "runtime"
        self.runtime.mkdir()
        self.listing = listing(workspace, rule)
        self.names = self.listing.names
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
        return RunTree(self.root, dict(changes or {}), self.runtime, at=self.at)

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

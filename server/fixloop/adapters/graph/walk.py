"""The workspace's Python files, read for indexing without being led out of the project.

The project is untrusted: folders are opened one name at a time from their parent's fd with O_NOFOLLOW
(`fdwalk`), files with O_NOFOLLOW too, so a symlinked file or folder is skipped, never followed. Nothing
is imported or run. The walk stops at a file count and skips large files.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

from fixloop.kit.fdwalk import DIR_FLAGS, open_dir
from fixloop.adapters.runner.project_files import skipped_folder

MAX_FILES = 5_000
MAX_FILE_BYTES = 1_000_000


def python_files(root: Path, max_files: int = MAX_FILES, max_bytes: int = MAX_FILE_BYTES) -> Iterator[tuple[str, str]]:
    """(relative path, text) of the project's `.py` files, in a stable order."""
    fd = os.open(root, DIR_FLAGS)  # the root itself is the user's choice; below it nothing is followed
    count = 0
    try:
        for rel, text in _walk(fd, ""):
            yield rel, text
            count += 1
            if count >= max_files:
                return
    finally:
        os.close(fd)


def read_file(root: Path, rel: str, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """One project file by its relative path, never through a link; None when it is not a plain file."""
    parts = [p for p in rel.split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    fd = os.open(root, DIR_FLAGS)
    try:
        for part in parts[:-1]:
            nxt = open_dir(fd, part)
            os.close(fd)
            fd = nxt
        return _read(fd, parts[-1], max_bytes)
    except OSError:
        return None
    finally:
        os.close(fd)


def _walk(fd: int, prefix: str) -> Iterator[tuple[str, str]]:
    try:
        entries = sorted(os.scandir(fd), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if skipped_folder(name) or name.startswith("."):  # the copy's rule, and no hidden folder
                    continue
                try:
                    child = open_dir(fd, name)
                except OSError:  # swapped for a link meanwhile: refused where it stands
                    continue
                try:
                    yield from _walk(child, f"{prefix}{name}/")
                finally:
                    os.close(child)
            elif name.endswith(".py") and entry.is_file(follow_symlinks=False):
                text = _read(fd, name, MAX_FILE_BYTES)
                if text is not None:
                    yield f"{prefix}{name}", text
        except OSError:
            continue


def _read(dir_fd: int, name: str, max_bytes: int) -> str | None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > max_bytes:  # the project's code may grow the file after the fstat
                return None
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)

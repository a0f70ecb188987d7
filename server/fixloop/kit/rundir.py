"""`.fixloop/runs/<id>/` on the host, never through a link the project planted.

A repository can commit `.fixloop`, `.fixloop/.gitignore` or `.fixloop/runs` as a symlink (or a
dangling one to a file that does not exist yet): fixloop, possibly as root, would then create or
truncate files wherever it points. Every step here goes through a directory fd with O_NOFOLLOW (`fdwalk`),
new files are created with O_EXCL, and a link where fixloop writes is refused with what to remove.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fixloop.kit.fdwalk import open_dir, write_all

TOP = ".fixloop"
RUNS = "runs"
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class LinkedRunLog(OSError):
    """A link (or something else that is not a plain folder or file) sits where fixloop writes its log."""


def valid_run_id(run_id: str) -> bool:
    """A run id names one folder: no separators, no dots-only names, nothing a client could aim with."""
    return bool(run_id) and run_id not in (".", "..") and "/" not in run_id and "\0" not in run_id \
        and len(run_id) <= 200


def _refuse_if_link(parent_fd: int, name: str, label: str, workspace: Path) -> None:
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise LinkedRunLog(f"{label} in {workspace} is a symlink; fixloop never writes its run log through a link: "
                           f"remove {workspace / label} (fixloop makes a fresh one)")
    if not stat.S_ISDIR(st.st_mode) and label != f"{TOP}/.gitignore":
        raise LinkedRunLog(f"{label} in {workspace} is not a folder: remove {workspace / label} "
                           "(fixloop makes a fresh one)")


def _subdir(parent_fd: int, name: str, label: str, workspace: Path, create: bool) -> int:
    try:
        return open_dir(parent_fd, name, create)
    except OSError:
        _refuse_if_link(parent_fd, name, label, workspace)
        raise


def open_runs(workspace: Path, create: bool) -> int:
    """A directory fd for `.fixloop/runs` (made, with its `.gitignore`, when `create`). The caller closes it."""
    ws_fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the user chose this path
    try:
        top_fd = _subdir(ws_fd, TOP, TOP, workspace, create)
    finally:
        os.close(ws_fd)
    try:
        if create:
            _ensure_gitignore(top_fd, workspace)
        return _subdir(top_fd, RUNS, f"{TOP}/{RUNS}", workspace, create)
    finally:
        os.close(top_fd)


def _ensure_gitignore(top_fd: int, workspace: Path) -> None:
    """Keep the run logs out of the user's commits; an existing regular file is the user's and stays."""
    try:
        fd = os.open(".gitignore", NEW_FILE, 0o644, dir_fd=top_fd)
    except FileExistsError:  # O_CREAT|O_EXCL never follows a link, not even a dangling one
        _refuse_if_link(top_fd, ".gitignore", f"{TOP}/.gitignore", workspace)
        return
    try:
        write_all(fd, b"*\n")
    finally:
        os.close(fd)


def make_run_dir(workspace: Path, run_id: str) -> int:
    """A fresh `.fixloop/runs/<run_id>` as a directory fd. The caller closes it."""
    if not valid_run_id(run_id):
        raise ValueError(f"not a run id: {run_id!r}")
    runs_fd = open_runs(workspace, create=True)
    try:
        try:
            os.mkdir(run_id, 0o755, dir_fd=runs_fd)
        except FileExistsError:
            _refuse_if_link(runs_fd, run_id, f"{TOP}/{RUNS}/{run_id}", workspace)
            raise
        return _subdir(runs_fd, run_id, f"{TOP}/{RUNS}/{run_id}", workspace, create=False)
    finally:
        os.close(runs_fd)


def open_run_dir(workspace: Path, run_id: str) -> int:
    """The existing `.fixloop/runs/<run_id>` as a directory fd, or FileNotFoundError. The caller closes it."""
    if not valid_run_id(run_id):
        raise FileNotFoundError(f"not a run id: {run_id!r}")
    runs_fd = open_runs(workspace, create=False)
    try:
        return _subdir(runs_fd, run_id, f"{TOP}/{RUNS}/{run_id}", workspace, create=False)
    finally:
        os.close(runs_fd)


def create_file(dir_fd: int, name: str, data: bytes = b"", append: bool = False) -> int | None:
    """Create `name` (never an existing one) in the folder; with `append`, return its fd open for more."""
    fd = os.open(name, NEW_FILE | (os.O_APPEND if append else 0), 0o644, dir_fd=dir_fd)
    try:
        write_all(fd, data)
    except BaseException:
        os.close(fd)
        raise
    if append:
        return fd
    os.close(fd)
    return None


def replace_file(dir_fd: int, name: str, data: bytes) -> None:
    """Write `name` atomically: a fresh temporary beside it, then a rename within the same folder."""
    tmp = f".{name}.{os.getpid()}.tmp"
    try:
        os.unlink(tmp, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    create_file(dir_fd, tmp, data)
    os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def append_file(dir_fd: int, name: str, data: bytes) -> None:
    """Append to a regular, singly linked `name` in the folder (made if missing), never through a link."""
    fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                 0o644, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise LinkedRunLog(f"refusing to append to {name}: not a singly linked regular file")
        write_all(fd, data)
    finally:
        os.close(fd)

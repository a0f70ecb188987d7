"""Reading what sandboxed code left behind, on the host, without being tricked.

Sandboxed code controls every name in the scratch copy: a result file may be a symlink to the user's
key, a hard link, a FIFO that blocks the reader, or huge. Walk each component with O_NOFOLLOW from a
directory fd, then accept only a regular, singly linked file within the size cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from fixloop.kit.fdwalk import DIR_FLAGS, descend, write_all


class UnsafeFile(OSError):
    """The file is a symlink, a hard link, a special file, outside the copy or too big."""


def _names(relpath: str) -> tuple[str, ...]:
    parts = PurePosixPath(relpath).parts
    if not parts or PurePosixPath(relpath).is_absolute() or any(p in ("..", ".") for p in parts):
        raise UnsafeFile(f"{relpath!r} is not a plain relative path")
    return parts


def open_beneath(root: Path, relpath: str) -> int:
    """An fd for `root/relpath`, refusing symlinks and `..` at every step. The caller closes it."""
    dir_fd, name = _parent_fd(root, relpath, create=False)
    try:
        # O_NONBLOCK: a planted FIFO must not block the reader; regular files ignore the flag.
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as e:
        raise UnsafeFile(e.errno, f"refusing {relpath}: {e.strerror}") from e
    finally:
        os.close(dir_fd)


def read_beneath(root: Path, relpath: str, limit: int) -> bytes:
    """The bytes of a regular file under `root`, never following a symlink, at most `limit` bytes."""
    fd = open_beneath(root, relpath)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(f"refusing {relpath}: not a regular file")
        if st.st_nlink > 1:
            raise UnsafeFile(f"refusing {relpath}: a hard link")
        if st.st_size > limit:
            raise UnsafeFile(f"refusing {relpath}: {st.st_size} bytes, over the {limit} byte cap")
        chunks, left = [], limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise UnsafeFile(f"refusing {relpath}: grew over the {limit} byte cap")
        return data
    finally:
        os.close(fd)


def _parent_fd(root: Path, relpath: str, create: bool) -> tuple[int, str]:
    """A directory fd for the parent of `relpath` (no symlinks followed on the way) and the last name."""
    names = _names(relpath)
    fd = os.open(root, DIR_FLAGS)
    try:
        return descend(fd, names[:-1], create), names[-1]
    except OSError as e:
        raise UnsafeFile(e.errno, f"refusing {relpath}: {e.strerror}") from e


def write_beneath(root: Path, relpath: str, data: bytes) -> None:
    """Write a regular file under `root`, never through a symlink, hard link or special file planted there."""
    dir_fd, name = _parent_fd(root, relpath, create=True)
    try:
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644,
                         dir_fd=dir_fd)
        except OSError as e:
            raise UnsafeFile(e.errno, f"refusing to write {relpath}: {e.strerror}") from e
    finally:
        os.close(dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            raise UnsafeFile(f"refusing to write {relpath}: not a singly linked regular file")
        os.ftruncate(fd, 0)
        write_all(fd, data)
    finally:
        os.close(fd)


def unlink_beneath(root: Path, relpath: str) -> None:
    """Remove `root/relpath` (the name itself, never what a symlink points at); a missing file is fine."""
    try:
        dir_fd, name = _parent_fd(root, relpath, create=False)
    except UnsafeFile as e:
        if e.errno == 2:
            return
        raise
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(dir_fd)

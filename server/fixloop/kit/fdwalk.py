"""Walking a tree that something untrusted can write (the project, a run's scratch copy) without being led
out of it: one name at a time from the parent folder's fd, with O_NOFOLLOW, so a symlink (dangling or not,
planted before or during the walk) is refused where it stands instead of followed.

`rundir` (fixloop's run log inside the project) and `sandbox.hostio` (reading and writing a scratch copy)
both walk with these; what each does when a step is refused (its message, its exception) stays theirs.
"""

from __future__ import annotations

import os
from typing import Sequence

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_dir(parent_fd: int, name: str, create: bool = False) -> int:
    """A directory fd for `name` in the folder `parent_fd`, never through a link; with `create`, a missing
    folder is made first (0755). The caller closes it."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, 0o755, dir_fd=parent_fd)  # mkdir never follows a link either
    except FileExistsError:  # someone made it meanwhile: the open below still refuses a link
        pass
    return os.open(name, DIR_FLAGS, dir_fd=parent_fd)


def descend(fd: int, names: Sequence[str], create: bool = False) -> int:
    """Take the directory fd `fd` and walk down `names` with `open_dir`: the last folder's fd (`fd` itself
    when `names` is empty), every other closed. On an error nothing stays open, `fd` included."""
    try:
        for name in names:
            nxt = open_dir(fd, name, create)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]

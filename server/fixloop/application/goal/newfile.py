"""The reproduction test as part of the offered fix: the fix with it, and creating it (never over a file)."""

from __future__ import annotations

import os
from pathlib import Path

from fixloop.core.model import FileChange, Patch
from fixloop.kit.fdwalk import DIR_FLAGS, descend, write_all
from fixloop.kit.rundir import NEW_FILE


def with_new_file(patch: Patch, path: str, text: str) -> Patch:
    """The fix with the new test first; `meta["new_files"]` says which changes create a file."""
    return Patch((FileChange(path, "", text),) + tuple(patch.changes), patch.proposer, patch.operator,
                 patch.summary, {**patch.meta, "new_files": (path,)})


def create_file(workspace: Path, rel: str, text: str) -> str:
    """Create `rel` under `workspace` with `text`, folder by folder without following links, refusing an
    existing file. "" when done, else why not (nothing written then)."""
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts) or rel.startswith("/"):
        return f"{rel}: not a plain relative path"
    try:
        root_fd = os.open(workspace, DIR_FLAGS & ~os.O_NOFOLLOW)  # the user chose this folder
        dir_fd = descend(root_fd, parts[:-1], create=True)
    except OSError as e:
        return f"{rel}: cannot make its folder ({e.strerror or e})"
    try:
        fd = os.open(parts[-1], NEW_FILE, 0o644, dir_fd=dir_fd)
    except FileExistsError:
        return f"{rel}: exists now; fixloop never overwrites a file with a new test"
    except OSError as e:
        return f"{rel}: cannot create it ({e.strerror or e})"
    finally:
        os.close(dir_fd)
    try:
        write_all(fd, text.encode("utf-8"))
        os.fsync(fd)
    except OSError as e:
        os.close(fd)
        remove_file(workspace, rel)
        return f"{rel}: cannot write it ({e.strerror or e})"
    os.close(fd)
    return ""


def remove_file(workspace: Path, rel: str) -> None:
    """Take back a file `create_file` made (the rest of the fix could not be applied)."""
    parts = rel.split("/")
    try:
        dir_fd = descend(os.open(workspace, DIR_FLAGS & ~os.O_NOFOLLOW), parts[:-1])
    except OSError:
        return
    try:
        os.unlink(parts[-1], dir_fd=dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)

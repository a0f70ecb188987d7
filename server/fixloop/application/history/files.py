"""Reading `.fixloop/runs/<id>/` back, as untrusted input.

The folder is in the project, so the project (or a candidate) may have planted links, FIFOs, huge files or
garbage there. Every step goes through a directory fd with O_NOFOLLOW, only regular files are read, each
file is read up to a cap (more is "truncated"), and nothing here raises for bad content: the caller gets
bytes or a reason.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from fixloop.kit.fdwalk import DIR_FLAGS
from fixloop.kit.rundir import RUNS, TOP, valid_run_id

FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a planted FIFO never hangs
CAPS = {"summary.json": 2 << 20, "events.jsonl": 32 << 20, "decisions.jsonl": 2 << 20, "fix.diff": 2 << 20}
RUN_FILES = ("summary.json", "events.jsonl", "decisions.jsonl")
MAX_RUNS = 200_000  # run folders read per project at most


@dataclass
class RunFiles:
    run_id: str
    data: dict[str, bytes] = field(default_factory=dict)  # file name -> its bytes (up to the cap)
    problems: list[str] = field(default_factory=list)  # what was wrong with the folder, for the user


def open_runs_dir(workspace: Path) -> int | None:
    """A directory fd for `<workspace>/.fixloop/runs`, or None when there is none (or a link is in the way)."""
    try:
        ws_fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the user named this path
    except OSError:
        return None
    try:
        top = os.open(TOP, DIR_FLAGS, dir_fd=ws_fd)
    except OSError:
        return None
    finally:
        os.close(ws_fd)
    try:
        return os.open(RUNS, DIR_FLAGS, dir_fd=top)
    except OSError:
        return None
    finally:
        os.close(top)


def run_ids(runs_fd: int) -> list[str]:
    """The names of the run folders (plain directories only, never a link), sorted, at most MAX_RUNS."""
    out: list[str] = []
    with os.scandir(runs_fd) as it:
        for entry in it:
            if len(out) >= MAX_RUNS:
                break
            if valid_run_id(entry.name) and not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                out.append(entry.name)
    return sorted(out)


def signature(runs_fd: int, run_id: str) -> tuple[int, ...]:
    """A cheap fingerprint of a run folder's files (size, mtime, mode) without opening them: the cache key.
    Only stat() through the folder name (listed as a plain directory by `run_ids`): a link swapped in since
    can at worst change the fingerprint, and the files themselves are only ever read by `read_run`."""
    sig: list[int] = []
    for name in RUN_FILES:
        try:
            st = os.stat(f"{run_id}/{name}", dir_fd=runs_fd, follow_symlinks=False)
            sig += [st.st_size, st.st_mtime_ns, st.st_mode]
        except OSError:
            sig += [-1, 0, 0]
    return tuple(sig)


def is_run_dir(runs_fd: int, run_id: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(run_id, dir_fd=runs_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def read_run(runs_fd: int, run_id: str, names: tuple[str, ...] = RUN_FILES) -> RunFiles:
    out = RunFiles(run_id)
    try:
        dir_fd = os.open(run_id, DIR_FLAGS, dir_fd=runs_fd)
    except OSError as e:
        out.problems.append(f"cannot open the run folder ({e.strerror or e})")
        return out
    try:
        for name in names:
            data, problem = read_capped(dir_fd, name, CAPS.get(name, 1 << 20))
            if data is not None:
                out.data[name] = data
            if problem:
                out.problems.append(f"{name}: {problem}")
    finally:
        os.close(dir_fd)
    return out


def read_capped(dir_fd: int, name: str, cap: int) -> tuple[bytes | None, str]:
    """The file's bytes (at most `cap`) and what was wrong ("" when nothing; a missing file is no problem)."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None, ""
    except OSError as e:
        return None, "a link, not a file: skipped" if e.errno == 40 else f"unreadable ({e.strerror or e})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file: skipped"
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > cap:
            return data[:cap], f"over {cap >> 20} MB: read the first {cap >> 20} MB only"
        return data, ""
    except OSError as e:
        return None, f"unreadable ({e.strerror or e})"
    finally:
        os.close(fd)

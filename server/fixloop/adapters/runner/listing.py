"""Which files of the project the scratch copy takes, read as data: git is never run on the host.

The rule, in the order it is applied:
1. never: version control, virtualenvs (any folder holding a `pyvenv.cfg`), credential files, and what
   the user's `workspace.copy_exclude` globs name; nor virtualenvs by their usual names, caches and
   build output (`SKIP_DIRS`) unless a `workspace.copy_include` glob names something inside them;
2. always: every file the project's `.gitignore` files (and `.git/info/exclude`) do not ignore, as
   git would list it, tracked or not;
3. ignored files the tests may need (a `_version.py` written at install time, a generated parser,
   local data): copied while each is at most `workspace.ignored_file_kb` and all of them together at
   most `workspace.ignored_total_mb` and `IGNORED_FILES`; past that they are left out and named, and an
   ignored folder is no longer entered. `workspace.copy_include` globs take an ignored file whatever
   its size.

Reading `.gitignore` files instead of asking git matters: the repository's config can make git run
commands (fsmonitor, promisor remotes, protocols), and the repository is untrusted. Every folder is
opened from its parent's descriptor without following links, and every ignore file is read the same
way, capped, so a planted link or fifo can neither redirect nor stall the walk.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pathspec import GitIgnoreSpec

from fixloop.adapters.runner.project_files import DIR_FLAGS, is_secret, plain_name, skipped_folder

IGNORE_FILE_BYTES = 256 * 1024
IGNORED_FILES = 2_000  # ignored files copied at most (a folder of many small files is data, not code)
LEFT_OUT_SHOWN = 50


@dataclass(frozen=True)
class CopyRule:
    """The user's (and the project's) say on what the copy takes; see the module's docstring."""

    include: tuple[str, ...] = ()  # gitignore-style globs of ignored files always copied
    exclude: tuple[str, ...] = ()  # gitignore-style globs of files never copied
    ignored_file_kb: int = 1024
    ignored_total_mb: int = 20


@dataclass
class Listing:
    names: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # ignored files (or folders, with a `/`) not copied
    ignored_copied: int = 0
    ignored_bytes: int = 0
    files: int = 0  # what the copy takes, counted as the walk goes
    bytes: int = 0
    stopped: bool = False  # the walk stopped at a limit the caller gave: the counts are lower bounds


class _Stop(Exception):
    pass


@dataclass
class _Walk:
    rule: CopyRule
    include: GitIgnoreSpec
    exclude: GitIgnoreSpec
    out: Listing
    stop_files: int | None = None
    stop_bytes: int | None = None

    def take(self, path: str, size: int) -> None:
        self.out.names.append(path)
        self.out.files += 1
        self.out.bytes += size
        if (self.stop_files is not None and self.out.files > self.stop_files) or \
                (self.stop_bytes is not None and self.out.bytes > self.stop_bytes):
            self.out.stopped = True
            raise _Stop

    def names_inside(self, folder: str) -> bool:
        """The user's include globs name something inside `folder` (a skipped folder is then entered)."""
        return any(p.lstrip("/").startswith(folder + "/") or p.strip("/") == folder for p in self.rule.include)

    def budget_left(self, size: int) -> bool:
        return (self.out.ignored_copied < IGNORED_FILES
                and self.out.ignored_bytes + size <= self.rule.ignored_total_mb * 1024 * 1024)


def list_files(root: Path, rule: CopyRule = CopyRule()) -> list[str]:
    return listing(root, rule).names


def listing(root: Path, rule: CopyRule = CopyRule(), stop_files: int | None = None,
            stop_bytes: int | None = None) -> Listing:
    """The files to copy (plain relative names, sorted) and the ignored ones left out; the walk stops
    once the copy would pass `stop_files` files or `stop_bytes` bytes (the workspace guard's question)."""
    walk = _Walk(rule, GitIgnoreSpec.from_lines(rule.include), GitIgnoreSpec.from_lines(rule.exclude), Listing(),
                 stop_files, stop_bytes)
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the user chose the project
    except OSError:
        return walk.out
    try:
        base = [("", _spec(_read_capped(fd, ".git/info/exclude")))]
        _folder(fd, "", base, False, walk)
    except _Stop:
        pass
    finally:
        os.close(fd)
    walk.out.names.sort()
    return walk.out


def _folder(fd: int, rel: str, specs: list[tuple[str, GitIgnoreSpec | None]], ignored: bool, walk: _Walk,
            only_included: bool = False) -> None:
    """List one folder (`fd`, at `rel`) and descend; `ignored`: the folder itself is ignored;
    `only_included`: a folder the copy skips, entered for the user's include globs alone."""
    specs = specs + [(rel, _spec(_read_capped(fd, ".gitignore")))]
    try:
        entries = sorted(os.listdir(fd))
    except OSError:
        return
    if rel and "pyvenv.cfg" in entries:
        return  # a virtualenv by any name: shown read-only to the sandbox when it is the interpreter's
    for name in entries:
        path = f"{rel}{name}"
        if not plain_name(path) or walk.exclude.match_file(path):
            continue
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            if name != ".git" and (only_included or skipped_folder(name)):
                if walk.names_inside(path):
                    _subfolder(fd, name, path, specs, True, walk, only_included=True)
            elif not skipped_folder(name):
                _subfolder(fd, name, path, specs, ignored, walk)
        elif (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)) and name != ".git" and not is_secret(path):
            if not only_included or walk.include.match_file(path):
                _file(path, st.st_size, ignored or _ignored(path, False, specs), walk)


def _subfolder(fd: int, name: str, path: str, specs: list[tuple[str, GitIgnoreSpec | None]], ignored: bool,
               walk: _Walk, only_included: bool = False) -> None:
    ignored = ignored or _ignored(path, True, specs)
    if ignored and not only_included and not walk.budget_left(0):
        _left_out(walk.out, path + "/")
        return
    try:
        child = os.open(name, DIR_FLAGS, dir_fd=fd)
    except OSError:
        return
    try:
        _folder(child, path + "/", specs, ignored, walk, only_included)
    finally:
        os.close(child)


def _file(path: str, size: int, ignored: bool, walk: _Walk) -> None:
    if not ignored:
        walk.take(path, size)
    elif walk.include.match_file(path) or (size <= walk.rule.ignored_file_kb * 1024 and walk.budget_left(size)):
        walk.out.ignored_copied += 1
        walk.out.ignored_bytes += size
        walk.take(path, size)
    else:
        _left_out(walk.out, path)


def _left_out(out: Listing, path: str) -> None:
    if len(out.left_out) < LEFT_OUT_SHOWN:
        out.left_out.append(path)


def _ignored(path: str, is_dir: bool, specs: list[tuple[str, GitIgnoreSpec | None]]) -> bool:
    """git's answer: the deepest ignore file with a matching pattern decides (its last match wins)."""
    for base, spec in reversed(specs):
        if spec is None:
            continue
        rel = path[len(base):] + ("/" if is_dir else "")
        decided = spec.check_file(rel).include
        if decided is not None:
            return decided
    return False


def _spec(text: str) -> GitIgnoreSpec | None:
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not lines:
        return None
    try:
        return GitIgnoreSpec.from_lines(lines)
    except (ValueError, TypeError):  # a pattern pathspec cannot read: the file is taken as ignoring nothing
        return None


def _read_capped(dir_fd: int, name: str) -> str:
    """A small regular file beneath `dir_fd`, never through a link or from a fifo; '' otherwise."""
    *folders, base = name.split("/")
    fds: list[int] = []
    try:
        at = dir_fd
        for part in folders:
            at = os.open(part, DIR_FLAGS, dir_fd=at)
            fds.append(at)
        fd = os.open(base, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=at)
    except OSError:
        return ""
    finally:
        for opened in fds:
            os.close(opened)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, IGNORE_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)

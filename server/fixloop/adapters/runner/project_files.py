"""Copying the project's files into the scratch copy without being steered (which files: `listing.py`).

Everything in the project is untrusted: a name can climb (`sub/../../x`), be absolute, or pass under a
folder that is now a symlink to the user's `~/.ssh`, and a file can be a hard link to one outside the
project. Names are checked as plain relative paths, each one is opened component by component from
directory fds with O_NOFOLLOW (a symlinked folder on the way skips the file), a regular file with more
than one link is skipped like a symlink out, and the copy's folders and files are made the same way
under the destination.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "__pycache__", ".pytest_cache", ".mypy_cache",
    ".ruff_cache", ".tox", ".nox", "node_modules", ".fixloop", ".eggs", "build", "dist", ".idea", ".vscode",
})
SECRET_FILES = frozenset({".netrc", ".pypirc", ".npmrc", "credentials.json", ".git-credentials"})
READABLE = 0o444
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def plain_name(name: str) -> bool:
    """A relative name with no `..`, `.`, empty or absolute component: one that cannot climb out."""
    if not name or name.startswith("/") or "\0" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def is_secret(name: str) -> bool:
    """Credential files stay out of the copy: code under test has no business reading them."""
    base = name.rsplit("/", 1)[-1]
    return (base == ".env" or base.startswith(".env.") or base in SECRET_FILES
            or base.endswith((".pem", ".key", ".p12")) or base.startswith("id_rsa") or base.startswith("id_ed25519"))


def skipped_folder(name: str) -> bool:
    """Folders no copy takes: version control, virtualenvs by their usual names, caches and build output."""
    return name in SKIP_DIRS or name.endswith(".egg-info")


class _DirChain:
    """The open folders of the current path, in the project and in the copy; sorted names share most."""

    def __init__(self, src_root: int, dst_root: int) -> None:
        self.parts: list[str] = []
        self.src: list[int] = [src_root]
        self.dst: list[int] = [dst_root]

    def enter(self, parts: list[str]) -> tuple[int, int] | None:
        """Directory fds of `parts` (made in the copy as needed), or None if the project's is not a plain folder."""
        common = 0
        while common < min(len(parts), len(self.parts)) and parts[common] == self.parts[common]:
            common += 1
        self._pop_to(common)
        for part in parts[common:]:
            try:
                src = os.open(part, DIR_FLAGS, dir_fd=self.src[-1])
            except OSError:  # a symlinked folder (ELOOP/ENOTDIR), or gone: the file is not copied
                return None
            try:
                try:
                    os.mkdir(part, 0o777, dir_fd=self.dst[-1])
                except FileExistsError:
                    pass
                dst = os.open(part, DIR_FLAGS, dir_fd=self.dst[-1])
            except OSError:
                os.close(src)
                return None
            try:
                os.fchmod(dst, 0o755)  # whatever the umask: the sandbox's own uid enters it (see _copy_file)
            except OSError:
                pass
            self.parts.append(part)
            self.src.append(src)
            self.dst.append(dst)
        return self.src[-1], self.dst[-1]

    def _pop_to(self, depth: int) -> None:
        while len(self.parts) > depth:
            self.parts.pop()
            os.close(self.src.pop())
            os.close(self.dst.pop())

    def close(self) -> None:
        self._pop_to(0)


def _copy_file(src_dir: int, dst_dir: int, name: str, st: os.stat_result) -> None:
    try:
        src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=src_dir)
    except OSError:
        return
    try:
        now = os.fstat(src)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return  # swapped since the lstat
        if now.st_nlink > 1:
            return  # a hard link may share its content with any file outside: treated like a link out
        # Permission bits only: a setuid file of the project must not become one owned by the user.
        dst = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                      stat.S_IMODE(now.st_mode) & 0o777 | 0o600, dir_fd=dst_dir)
        try:
            left = now.st_size
            while left > 0:
                try:
                    sent = os.sendfile(dst, src, None, min(left, 1 << 30))
                except OSError:
                    sent = -1
                if sent <= 0:
                    break
                left -= sent
            if left > 0:  # sendfile unsupported here, or the file shrank: finish with plain reads
                while chunk := os.read(src, 1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(dst, view):]
            # Readable by all: a sandbox that runs as its own uid copies the pristine tree again for each warm
            # candidate, and one owner-only file (hypothesis's cache, a private data file) stopped every copy.
            # The copy's own folder is 0700 and the user's, so nobody else sees more.
            os.fchmod(dst, stat.S_IMODE(now.st_mode) & 0o777 | READABLE)
            os.utime(dst, ns=(now.st_atime_ns, now.st_mtime_ns))
        finally:
            os.close(dst)
    except OSError:
        pass
    finally:
        os.close(src)


def _copy_link(real_root: Path, name: str, src_dir: int, dst_dir: int, base: str) -> None:
    """Recreate a symlink only when what it finally names lies inside the project (relative, in the copy)."""
    try:
        target = os.readlink(base, dir_fd=src_dir)
    except OSError:
        return
    # The folders on the way were just opened without following links, so this is the link's real folder.
    parent = (real_root / name).parent
    resolved = Path(os.path.realpath(parent / target))
    if resolved != real_root and real_root not in resolved.parents:
        return
    try:
        os.symlink(os.path.relpath(resolved, parent), base, dir_fd=dst_dir)
    except OSError:
        pass


def copy_tree(root: Path, dest: Path, names: list[str]) -> None:
    """Copy regular files; keep only symlinks that stay inside the workspace; skip special files and any
    name that is not plain or that passes through a symlinked folder."""
    real_root = root.resolve()
    src_root = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the user chose the project
    try:
        dst_root = os.open(dest, DIR_FLAGS)
    except OSError:
        os.close(src_root)
        raise
    chain = _DirChain(src_root, dst_root)
    try:
        for name in sorted(names):
            if not plain_name(name):
                continue
            *folders, base = name.split("/")
            fds = chain.enter(folders)
            if fds is None:
                continue
            src_dir, dst_dir = fds
            try:
                st = os.stat(base, dir_fd=src_dir, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                _copy_link(real_root, name, src_dir, dst_dir, base)
            elif stat.S_ISREG(st.st_mode):
                _copy_file(src_dir, dst_dir, base, st)
    finally:
        chain.close()
        os.close(src_root)
        os.close(dst_root)

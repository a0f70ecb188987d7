"""A hand-made `.git/index`, as an attacker would ship one in an archive: git itself refuses names
with `..` or a leading `/` in `update-index`, so the index file is written here byte by byte."""

from __future__ import annotations

import hashlib
import struct
import subprocess
from pathlib import Path
from typing import Sequence

GIT_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}


def git(root: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(root), *args], env=GIT_ENV, input=data, capture_output=True,
                          check=True).stdout.decode()


def write_index(root: Path, entries: Sequence[tuple[str, bytes]]) -> None:
    """A version 2 index of `(name, content)` entries (names taken as given), with blobs in the object store."""
    if not (root / ".git").is_dir():
        git(root, "init", "-q", ".")
    body = b""
    rows = sorted((name.encode("utf-8", "surrogateescape"), data) for name, data in entries)
    for name, data in rows:
        sha = bytes.fromhex(git(root, "hash-object", "-w", "--stdin", data=data).strip())
        head = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, len(data)) + sha
        entry = head + struct.pack(">H", min(len(name), 0xFFF)) + name
        entry += b"\0" * (8 - len(entry) % 8)  # 1 to 8 NULs: the name is always terminated
        body += entry
    index = b"DIRC" + struct.pack(">II", 2, len(rows)) + body
    (root / ".git" / "index").write_bytes(index + hashlib.sha1(index).digest())


def ls_files(root: Path) -> list[str]:
    return [n for n in git(root, "ls-files", "-z", "--cached").split("\0") if n]

"""The shared no-follow walk (`fixloop.kit.fdwalk`) that the run log and the sandbox's host reads and writes use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixloop.kit.fdwalk import DIR_FLAGS, descend, open_dir


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_descend_makes_missing_folders_and_returns_the_last_one(tmp_path: Path) -> None:
    fd = descend(os.open(tmp_path, DIR_FLAGS), ["a", "b"], create=True)
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(tmp_path / "a" / "b"))
        assert oct((tmp_path / "a").stat().st_mode & 0o777) == oct(0o755 & ~_umask())
    finally:
        os.close(fd)


@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_on_the_way_is_refused_even_when_creating_and_nothing_stays_open(tmp_path: Path,
                                                                                dangling: bool) -> None:
    outside = tmp_path / "outside"
    if not dangling:
        outside.mkdir()
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "a").symlink_to(outside)
    before = _open_fds()
    with pytest.raises(OSError):
        descend(os.open(tmp_path / "root", DIR_FLAGS), ["a", "b"], create=True)
    assert _open_fds() == before
    assert not (outside / "b").exists() and (dangling is not outside.exists())


def test_open_dir_without_create_reports_a_missing_folder(tmp_path: Path) -> None:
    parent = os.open(tmp_path, DIR_FLAGS)
    try:
        with pytest.raises(FileNotFoundError):
            open_dir(parent, "missing")
        assert not (tmp_path / "missing").exists()
    finally:
        os.close(parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

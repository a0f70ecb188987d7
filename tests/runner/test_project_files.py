"""Listing and copying the project with real git and a real filesystem, the index and config hostile."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fixloop.adapters.runner.listing import list_files
from fixloop.adapters.runner.project_files import copy_tree, plain_name
from tests.git_index import git, write_index


def _copy(root: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    dest.mkdir()
    copy_tree(root, dest, list_files(root))
    return dest


def _tree(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


@pytest.mark.parametrize("name,ok", [("a.py", True), ("pkg/a.py", True), ("a/../b", False), ("../x", False),
                                     ("/etc/passwd", False), ("a//b", False), ("./a", False), ("a/.", False),
                                     ("", False), ("a\0b", False)])
def test_plain_names(name: str, ok: bool) -> None:
    assert plain_name(name) is ok


def test_index_names_that_climb_or_are_absolute_are_skipped(tmp_path: Path) -> None:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "deep" / "er").mkdir(parents=True)
    os.symlink("deep/er", root / "L")
    (root / ".gitignore").write_text("/L\n")
    write_index(root, [("a.py", b"x = 1\n"), ("sub/../../outside/x.py", b""), (f"{outside}/abs.py", b""),
                       ("L/../../../outside/y.py", b"")])
    names = list_files(root)  # the index is never read: the walk finds what is on disk
    assert names == [".gitignore", "L", "a.py"]
    # Even a caller that passes such names gets nothing outside the copy.
    dest = tmp_path / "copy"
    dest.mkdir()
    copy_tree(root, dest, ["a.py", "L/../../../outside/y.py", "../outside/z.py", f"{outside}/abs.py"])
    assert _tree(dest) == ["a.py"] and _tree(outside) == []


def test_a_file_under_a_folder_that_became_a_symlink_is_not_read(tmp_path: Path) -> None:
    root, ssh = tmp_path / "proj", tmp_path / "home" / ".ssh"
    root.mkdir()
    ssh.mkdir(parents=True)
    (ssh / "id_ecdsa").write_text("KEY\n")
    (root / "ok.py").write_text("")
    write_index(root, [("ok.py", b""), ("sub/id_ecdsa", b"placeholder\n"), ("sub/deeper/x.py", b"")])
    os.symlink(ssh, root / "sub")
    dest = _copy(root, tmp_path)
    assert _tree(dest) == ["ok.py"]


def test_symlinks_inside_are_kept_and_links_out_are_dropped(tmp_path: Path) -> None:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "pkg").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    (root / "pkg" / "real.py").write_text("x = 1\n")
    os.symlink("real.py", root / "pkg" / "alias.py")
    os.symlink("pkg", root / "pkgdir")
    os.symlink(outside / "secret.txt", root / "out.txt")
    os.symlink("pkg/../../outside/secret.txt", root / "climb.txt")
    os.symlink("pkgdir/../../outside", root / "outdir")
    git(root, "init", "-q", ".")  # git lists symlinks to folders too (a walk does not descend into them)
    dest = _copy(root, tmp_path)
    assert sorted(os.listdir(dest)) == ["pkg", "pkgdir"]
    assert os.readlink(dest / "pkg" / "alias.py") == "real.py" and (dest / "pkg" / "alias.py").read_text() == "x = 1\n"
    assert os.readlink(dest / "pkgdir") == "pkg"


def test_modes_and_times_are_kept_but_not_setuid(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o4755)
    os.utime(root / "run.sh", ns=(1_000_000_000, 2_000_000_000))
    (root / "big.bin").write_bytes(os.urandom(3 << 20))
    os.mkfifo(root / "fifo")
    dest = _copy(root, tmp_path)
    st = os.stat(dest / "run.sh")
    assert stat.S_IMODE(st.st_mode) == 0o755 and st.st_mtime_ns == 2_000_000_000
    assert (dest / "big.bin").read_bytes() == (root / "big.bin").read_bytes()
    assert not (dest / "fifo").exists()


def test_the_repositorys_config_runs_nothing_and_lists_only_the_project(tmp_path: Path) -> None:
    root, proof = tmp_path / "proj", tmp_path / "ran"
    root.mkdir()
    (root / "a.py").write_text("")
    (root / "ignored.log").write_text("")
    (root / ".gitignore").write_text("*.log\n")
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "x")
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "not_the_project.py").write_text("")
    for key, value in [("core.fsmonitor", f"touch {proof}-fsmonitor"), ("core.pager", f"touch {proof}-pager"),
                       ("pager.ls-files", "true"), ("filter.evil.clean", f"touch {proof}-clean; cat"),
                       ("filter.evil.process", f"touch {proof}-process"), ("core.untrackedCache", "true"),
                       ("core.worktree", str(other)), ("core.hooksPath", str(tmp_path))]:
        git(root, "config", key, value)
    (root / "new.py").write_text("")
    os.utime(root / "a.py", (4_000_000_000, 4_000_000_000))  # racy entries tempt git to re-hash them
    # git is never run: the small ignored file is copied like a generated one would be
    assert list_files(root) == [".gitattributes", ".gitignore", "a.py", "ignored.log", "new.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "proj"]


def test_a_broken_dot_git_does_not_make_git_read_a_parent_repository(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", ".")
    (tmp_path / "parent_file.py").write_text("")
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").write_text("gitdir: /nonexistent\n")
    (root / "a.py").write_text("")
    assert list_files(root) == ["a.py"]

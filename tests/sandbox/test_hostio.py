"""Host-side reading of files that sandboxed code controlled, and the bwrap argv's read-only view."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits
from fixloop.adapters.sandbox.bwrap import build_argv, workspace_path
from fixloop.adapters.sandbox.hostio import UnsafeFile, read_beneath


def test_reads_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "r.jsonl").write_bytes(b"ok\n")
    assert read_beneath(tmp_path, "d/r.jsonl", 10) == b"ok\n"


@pytest.mark.parametrize("kind", ["file_link", "dir_link", "hardlink", "fifo", "big", "dotdot", "absolute"])
def test_refuses_what_sandboxed_code_could_plant(tmp_path: Path, kind: str) -> None:
    secret = tmp_path / "secret"
    secret.write_text("KEY")
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    name = "d/r.jsonl"
    if kind == "file_link":
        os.symlink(secret, root / name)
    elif kind == "dir_link":
        os.rmdir(root / "d")
        os.symlink(tmp_path, root / "d")
        name = "d/secret"
    elif kind == "hardlink":
        os.link(secret, root / name)
    elif kind == "fifo":
        os.mkfifo(root / name)  # a blocking open would hang the reader forever
    elif kind == "big":
        (root / name).write_bytes(b"x" * 2000)
    elif kind == "dotdot":
        name = "../secret"
    else:
        name = str(secret)
    with pytest.raises(UnsafeFile):
        read_beneath(root, name, 1000)


def test_read_only_binds_never_show_root_home_or_the_copys_parents(tmp_path: Path) -> None:
    src = tmp_path / "scratch" / "src"
    src.mkdir(parents=True)
    wide = (Path("/"), Path("/root"), Path("/home"), Path("/tmp"), Path("/run"), tmp_path, Path.home())
    tree = RunTree(src)
    argv = build_argv(["true"], tree, SandboxLimits(disk_quota_mb=7), Policy(read_only=wide + (Path("/opt"),)),
                      root=True, uid=1234, seccomp_fd=None)
    sources = {argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"}
    assert not sources & {str(p) for p in wide}
    assert ("/opt" in sources) == Path("/opt").exists()
    # Nothing of the host is writable: the pristine tree is read-only, the workspace a sized tmpfs.
    assert "--bind" not in argv and str(src) in sources
    ws = str(workspace_path(tree))
    i = argv.index(ws)
    assert argv[i - 3:i] == ["--size", str(7 * 1024 * 1024), "--tmpfs"], argv[i - 5:i + 1]
    # The prelude runs first, then setpriv drops every capability before the command.
    prelude = argv.index("/bin/sh")
    assert argv.index("--bounding-set=-all") > prelude and argv[-1] == "true"


def test_only_a_folder_the_policy_names_writable_is_bound_writable_and_never_a_wide_one(tmp_path: Path) -> None:
    """An approved install writes the user's virtualenv: that folder alone is bound read-write."""
    src, venv, base = tmp_path / "scratch" / "src", tmp_path / "venv", tmp_path / "base"
    for folder in (src, venv, base):
        folder.mkdir(parents=True)
    policy = Policy(read_only=(base, venv), writable=(venv, Path("/"), Path.home()))
    argv = build_argv(["true"], RunTree(src), SandboxLimits(), policy, root=False, uid=1234, seccomp_fd=None)
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"] == [str(venv)]
    assert str(base) in {argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"}


def test_write_and_unlink_beneath_never_follow_planted_links(tmp_path: Path) -> None:
    from fixloop.adapters.sandbox.hostio import unlink_beneath, write_beneath

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep")
    root = tmp_path / "ws"
    root.mkdir()
    write_beneath(root, "new/dir/f.py", b"one")
    write_beneath(root, "new/dir/f.py", b"2")
    assert (root / "new/dir/f.py").read_bytes() == b"2"
    os.symlink(outside, root / "linkdir")
    os.symlink(outside / "victim", root / "linkfile")
    os.link(outside / "victim", root / "hard")
    for name in ("linkdir/victim", "linkfile", "hard", "linkdir/new.py"):
        with pytest.raises(UnsafeFile):
            write_beneath(root, name, b"pwned")
    with pytest.raises(UnsafeFile):
        unlink_beneath(root, "linkdir/victim")
    unlink_beneath(root, "linkfile")  # removes the link itself
    unlink_beneath(root, "missing/file")
    assert not os.path.lexists(root / "linkfile")
    assert (outside / "victim").read_text() == "keep" and sorted(p.name for p in outside.iterdir()) == ["victim"]

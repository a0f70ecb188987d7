"""Host-side reading of files that sandboxed code controlled, and the bwrap argv's read-only view."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixloop.sandbox.api import Policy, SandboxLimits
from fixloop.sandbox.bwrap import build_argv
from fixloop.sandbox.hostio import UnsafeFile, read_beneath


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
    ws = tmp_path / "scratch" / "ws"
    ws.mkdir(parents=True)
    wide = (Path("/"), Path("/root"), Path("/home"), Path("/tmp"), Path("/run"), tmp_path, Path.home())
    argv = build_argv(["true"], ws, SandboxLimits(), Policy(read_only=wide + (Path("/opt"),)), root=True, uid=1234,
                      seccomp_fd=None)
    sources = {argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"}
    assert not sources & {str(p) for p in wide}
    assert ("/opt" in sources) == Path("/opt").exists()
    assert argv[argv.index("--bind") + 1] == str(ws)

"""The landlock supervisor's clean-up, against the real kernel and the real /dev/shm: the whole tree of a
fork chain that is still growing is stopped, killed and reaped; what a run left in /dev/shm is removed,
and nothing else is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from fixloop.adapters.sandbox import landlock_exec
from fixloop.adapters.sandbox.landlock_exec import SHM, clean_shm, shm_entries

CHAIN = """
import json, os, sys, time
from fixloop.adapters.sandbox import landlock_exec as L

L.LIBC.prctl(L.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
tag, links, head_start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
if os.fork() == 0:
    for _ in range(links):
        os.setsid()
        if os.fork() != 0:
            os.execv("/bin/sleep", [f"sleep-{tag}", "60"])
    os._exit(0)
time.sleep(head_start)
found = len(L.descendants(L.process_table(), os.getpid()))
t = time.monotonic()
ok = L.kill_tree()
print(json.dumps({"ok": ok, "seconds": time.monotonic() - t, "found": found,
                  "left": len(L.descendants(L.process_table(), os.getpid()))}))
"""


def tagged(tag: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and tag.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("head_start", [0.05, 1.5])
def test_kill_tree_catches_a_fork_chain_that_is_still_growing(head_start: float) -> None:
    tag = uuid.uuid4().hex
    try:
        done = subprocess.run([sys.executable, "-c", CHAIN, tag, "1200", str(head_start)], capture_output=True,
                              text=True, timeout=60, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["ok"] and result["left"] == 0 and result["found"] >= 1, result
        assert result["seconds"] < landlock_exec.KILL_SECONDS, result
        time.sleep(0.2)
        assert tagged(tag) == [], "processes of the chain outlived kill_tree"
    finally:
        for pid in tagged(tag):
            os.kill(pid, 9)


@pytest.fixture
def shm_names() -> Iterator[str]:
    prefix = f"fixloop-test-{uuid.uuid4().hex}"
    yield prefix
    for name in os.listdir(SHM):
        if name.startswith(prefix):
            path = os.path.join(SHM, name)
            if os.path.isdir(path) and not os.path.islink(path):
                for inner in os.listdir(path):
                    os.unlink(os.path.join(path, inner))
                os.rmdir(path)
            else:
                os.unlink(path)


@pytest.mark.serial
def test_clean_shm_removes_only_what_the_run_left(shm_names: str, tmp_path: Path) -> None:
    # Another landlock run ending meanwhile on this machine may remove these entries too (the documented
    # residual risk of a shared /dev/shm): run this test alone, not beside the abuse suite.
    old = Path(SHM, f"{shm_names}-old")
    old.write_text("there before the run")
    before = shm_entries()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    new = Path(SHM, f"{shm_names}-new")
    new.write_text("left by the run")
    folder = Path(SHM, f"{shm_names}-dir")
    (folder / "deeper").mkdir(parents=True)
    (folder / "deeper" / "f").write_text("x")
    os.symlink(outside, folder / "link")  # removing the folder must not follow it
    os.symlink(tmp_path, Path(SHM, f"{shm_names}-dirlink"))
    busy = Path(SHM, f"{shm_names}-busy")
    held = open(busy, "w")  # another program's segment, still in use
    foreign = Path(SHM, f"{shm_names}-foreign")
    foreign.write_text("another user's")
    if os.geteuid() == 0:
        os.chown(foreign, 65534, 65534)
    try:
        assert clean_shm(before) == []
        left = sorted(n[len(shm_names) + 1:] for n in os.listdir(SHM) if n.startswith(shm_names))
        expected = ["busy", "old"] + (["foreign"] if os.geteuid() == 0 else [])
        assert left == sorted(expected)
        assert outside.read_text() == "keep me" and tmp_path.is_dir()
    finally:
        held.close()

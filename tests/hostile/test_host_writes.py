"""The host never writes, truncates, chowns or walks a tree the sandboxed code could write.

The project's tests plant symlinks wherever fixloop's host side used to touch files by name (the warm
workers' message files, the coverage folder, the report names, the workspace's own entries) pointing at
the bait home and the outside folder, and a conftest keeps swapping a directory with a symlink to an
outside tree while the host prepares the next run. Nothing outside the project may change, not even
ownership. Also: a disk filler is stopped at the quota, and other local users cannot read the copy.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from .harness import NOBODY, Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
PLANTER = '''
import os

BAITS = {baits!r}
NAMES = ["stop", "ready", "request", "answer"] + [f".req-{{i}}.tmp" for i in range(1, 40)] + \\
    [f"req-{{i:08d}}.json" for i in range(1, 40)] + [f"resp-{{i}}.json" for i in range(1, 40)] + \\
    [f"report-{{i}}.jsonl" for i in range(1, 40)] + [f".resp-{{i}}.tmp" for i in range(1, 40)]


def _link(path, target):
    try:
        if os.path.islink(path) or not os.path.exists(path):
            if os.path.lexists(path):
                os.unlink(path)
            os.symlink(target, path)
    except OSError:
        pass


def plant():
    """Symlinks at every name the host used to open, in every folder fixloop kept near the copy."""
    here = os.getcwd()
    places = [here]
    for up in range(1, 5):
        here = os.path.dirname(here)
        places.append(here)
    for place in places:
        for runtime in (os.path.join(place, ".fixloop_runtime"), os.path.join(place, "runtime"), place):
            if not os.path.isdir(runtime):
                continue
            folders = [runtime] + [os.path.join(runtime, n) for n in sorted(os.listdir(runtime))
                                   if n.startswith("warm-")]
            for folder in folders:
                for i, name in enumerate(NAMES):
                    _link(os.path.join(folder, name), BAITS[i % len(BAITS)])
            cov = os.path.join(runtime, "cov")
            if not os.path.islink(cov):
                try:
                    import shutil
                    shutil.rmtree(cov, ignore_errors=True)
                    os.symlink(BAITS[-1], cov)
                except OSError:
                    pass
'''
SWAPPER = '''
import ctypes
import os
import threading

OUTSIDE_TREE = {tree!r}


def _swap_forever():
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        os.makedirs("swapdir", exist_ok=True)
        for i in range(200):
            open(os.path.join("swapdir", f"f{{i}}"), "w").close()
        if not os.path.lexists("swaplink"):
            os.symlink(OUTSIDE_TREE, "swaplink")
    except OSError:
        return
    while True:
        # RENAME_EXCHANGE: the directory and the link trade places atomically, again and again.
        libc.renameat2(-100, b"swapdir", -100, b"swaplink", 2)


def pytest_configure(config):
    threading.Thread(target=_swap_forever, daemon=True).start()
'''
TEST = '''
import planter
from calc import inc


def test_inc():
    planter.plant()
    assert inc(1) == 2


def test_other():
    planter.plant()
    assert inc(5) == 6
'''


def _owners(tree: Path) -> dict[str, int]:
    return {str(p): p.lstat().st_uid for p in [tree, *tree.rglob("*")]}


def test_planted_links_and_a_racing_swap_never_reach_the_host(host: Host, backend: str) -> None:
    tree = host.outside / "tree"
    tree.mkdir()
    for i in range(200):
        (tree / f"f{i}").write_text("outside\n")
    baits = [str(host.bashrc), str(host.key), str(host.outside / "created-by-host"), str(host.outside)]
    host.write("calc.py", BUGGY)
    host.write("planter.py", PLANTER.format(baits=baits))
    host.write("conftest.py", SWAPPER.format(tree=str(tree)))
    host.write("tests/test_calc.py", TEST)
    host.snapshot()
    host.give_away()
    owners = _owners(tree)
    done = run_fix(host, backend, ["--dry-run", "--max-candidates", "12"])
    assert done.summary is not None, done.stderr
    assert host.evidence() == []
    assert host.bashrc.read_text() == "# the user's shell rc\n" and host.key.read_text() == "BAIT-PRIVATE-KEY\n"
    assert _owners(tree) == owners, "the host changed ownership outside the copy"


FILLER = '''
import os
import time


def _fill(folder, files, mb):
    got = 0
    for i in range(files):
        try:
            fd = os.open(os.path.join(folder, f"fill-{i}"), os.O_WRONLY | os.O_CREAT, 0o600)
            os.posix_fallocate(fd, 0, mb * 1024 * 1024)
            os.close(fd)
            got += mb
        except OSError:
            break
    return got


def test_fill():
    _fill(".", 16, 256)
    _fill(os.environ.get("TMPDIR", "/tmp"), 4, 256)
    time.sleep(3)  # hold it: where writes are not capped (landlock) the watchdog samples every 0.1 s
    assert False
'''


class FreeSpace:
    """The lowest free space of the host's /tmp filesystem while a run goes on (sampled every 10 ms)."""

    def __init__(self, path: str = "/tmp") -> None:
        self.path = path
        self.before = self._free()
        self.lowest = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _free(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.lowest = min(self.lowest, self._free())
            time.sleep(0.01)

    def stop(self) -> int:
        """The most bytes the run took at any moment."""
        self._stop.set()
        self._thread.join()
        return self.before - self.lowest


def test_a_disk_filler_is_stopped_at_the_quota(host: Host, backend: str) -> None:
    host.write("calc.py", BUGGY)
    host.write("tests/test_fill.py", FILLER)
    # A project may tighten its own limits: a 32 MB quota for this run.
    host.write("pyproject.toml", "[tool.fixloop.sandbox]\ndisk_quota_mb = 32\n")
    host.snapshot()
    free = FreeSpace()
    done = run_fix(host, backend, ["--dry-run"])
    taken = free.stop()
    assert done.summary is not None, done.stderr
    assert host.evidence() == []
    if backend in ("bwrap", "docker"):
        # A size-limited tmpfs: the 5 GB of reservations get ENOSPC; the host's disk never sees them (the
        # margin is for other programs writing to the same disk meanwhile).
        assert taken < 1024 * 1024 * 1024, f"the run took {taken >> 20} MB of host disk"
        assert done.summary["status"] != "nothing_to_fix"
    else:
        # No mounts without namespaces: the watchdog kills the run once it is over the quota (documented),
        # and a run cut at the quota is an error, not a test failure.
        assert done.summary["status"] == "error" and "disk" in done.summary["message"], done.summary
    after = os.statvfs("/tmp").f_bavail * os.statvfs("/tmp").f_frsize
    assert after >= free.before - 256 * 1024 * 1024, "the run's files were left behind"


SLOW = "import time\nfrom calc import inc\n\n\ndef test_inc():\n    time.sleep(4)\n    assert inc(1) == 2\n"


def _peek_as_nobody(seen: list[str], stop: threading.Event, secret: str) -> None:
    """Every new fixloop folder under /tmp, listed and read as uid 65534 while the run goes on (other
    programs on this machine may make fixloop folders too: only this project's unique names count)."""
    existing = set(os.listdir("/tmp"))
    script = f"grep -r {secret} \"$@\" 2>/dev/null; ls -R \"$@\" 2>/dev/null | grep {secret}"
    while not stop.is_set():
        dirs = [f"/tmp/{n}" for n in os.listdir("/tmp") if n.startswith("fixloop-") and n not in existing
                and not n.startswith("fixloop-hostile-")]
        if dirs:
            out = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                                  "sh", "-c", script, "sh", *dirs], capture_output=True, text=True).stdout
            seen.extend(ln for ln in out.splitlines() if ln.strip())
        time.sleep(0.2)


def test_other_users_cannot_read_the_scratch_copy(host: Host, backend: str) -> None:
    if host.user != "root":
        pytest.skip("the reader is uid 65534 itself: the run must be another user's")
    secret = f"private{uuid.uuid4().hex}"
    host.write("calc.py", f"# {secret}\n" + BUGGY)
    host.write(f"{secret}.py", "SECRET = 1\n")
    host.write("tests/test_calc.py", SLOW)
    host.snapshot()
    seen: list[str] = []
    stop = threading.Event()
    peek = threading.Thread(target=_peek_as_nobody, args=(seen, stop, secret), daemon=True)
    peek.start()
    try:
        done = run_fix(host, backend, ["--dry-run", "--max-candidates", "1"])
    finally:
        stop.set()
        peek.join()
    assert done.summary is not None, done.stderr
    assert seen == [], f"uid {NOBODY} read the scratch copy: {seen[:5]}"

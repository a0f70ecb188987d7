"""Real processes on a real store: concurrent writers lose nothing; kill -9 loses nothing committed."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore

from .conftest import SERVER

WRITER = str(Path(__file__).with_name("writer.py"))


def _writer(uri: str, tag: str, batches: int, size: int, compact_every: int = 0) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SERVER}
    return subprocess.Popen([sys.executable, WRITER, uri, tag, str(batches), str(size), str(compact_every)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_two_processes_writing_at_once_lose_no_rows(tmp_path: Path) -> None:
    uri = str(tmp_path / "memory")
    MemoryStore(uri, HashingEmbedder(64)).open()  # the store exists; both writers open it at once
    writers = [_writer(uri, "a", 25, 20, compact_every=8), _writer(uri, "b", 25, 20)]
    for w in writers:
        out, errors = w.communicate(timeout=120)
        assert w.returncode == 0, errors[-2000:]
        assert out.strip().endswith("done")
    store = MemoryStore(uri, HashingEmbedder(64)).open()
    ids = [r["id"] for r in store.rows("failures", columns=["id"], limit=10_000)]
    assert len(ids) == len(set(ids)) == 2 * 25 * 20
    assert {f"{t}-{b}-{i}" for t in "ab" for b in range(25) for i in range(20)} == set(ids)


def test_two_processes_creating_a_new_store_at_once_both_succeed(tmp_path: Path) -> None:
    uri = str(tmp_path / "fresh")
    writers = [_writer(uri, "a", 3, 5), _writer(uri, "b", 3, 5)]
    for w in writers:
        _, errors = w.communicate(timeout=120)
        assert w.returncode == 0, errors[-2000:]
    store = MemoryStore(uri, HashingEmbedder(64)).open()
    assert store.count("failures") == 30 and not store.problem


def test_kill_9_during_writes_keeps_every_committed_row(tmp_path: Path) -> None:
    uri = str(tmp_path / "memory")
    MemoryStore(uri, HashingEmbedder(64)).open()
    data = Path(uri) / "failures.lance" / "data"
    for round_, delay in enumerate((None, 0.05)):
        tag = f"k{round_}"
        w = _writer(uri, tag, 1000, 1500)
        committed: list[int] = []
        assert w.stdout is not None
        assert w.stdout.readline().strip() == "open"
        while len(committed) < 2:
            line = w.stdout.readline()
            assert line.startswith("committed"), line + w.stderr.read()[-2000:] if w.stderr else ""
            committed.append(int(line.split()[2]))
        if delay is None:  # kill as soon as the next batch's data file appears, before its commit
            files = len(list(data.iterdir()))
            deadline = time.monotonic() + 20
            while len(list(data.iterdir())) == files and time.monotonic() < deadline:
                time.sleep(0.001)
        else:
            time.sleep(delay)  # somewhere inside the next add()
        w.send_signal(signal.SIGKILL)
        rest = w.stdout.read()
        w.wait(timeout=30)
        committed += [int(line.split()[2]) for line in rest.splitlines() if line.startswith("committed")]
        store = MemoryStore(uri, HashingEmbedder(64)).open()
        assert not store.problem
        ids = {r["id"] for r in store.rows("failures", f"project = '{tag}'", ["id"], limit=10_000_000)}
        assert {f"{tag}-{b}-{i}" for b in committed for i in range(1500)} <= ids
        assert len(ids) % 1500 == 0  # whole batches only: nothing half-committed
        store.add("failures", [{"id": f"after-{tag}", "project": "after", "text": "still writable"}])
    assert MemoryStore(uri, HashingEmbedder(64)).open().count("failures", "project = 'after'") == 2

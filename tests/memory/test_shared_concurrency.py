"""Several machines writing one shared memory at once, and a writer killed with SIGKILL, on a real
S3-compatible server (moto). Lance commits a version by writing its manifest with a conditional put
(`If-None-Match: *`) and rebases an append that lost the race, so no row is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.shared import RemoteStore
from fixloop.adapters.memory.store import MemoryStore

from .conftest import SERVER
from .shared_helpers import machine
from .test_concurrency import _writer

pytestmark = pytest.mark.e2e
SHARED_WRITER = str(Path(__file__).with_name("shared_writer.py"))


def _machine(uri: str, folder: Path, tag: str, batches: int, size: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SERVER}
    return subprocess.Popen([sys.executable, SHARED_WRITER, uri, str(folder), tag, str(batches), str(size)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _remote_ids(uri: str) -> list[str]:
    store = RemoteStore(uri, HashingEmbedder(64)).open()
    return [r["id"] for r in store.rows("failures", columns=["id"], limit=10_000_000)]


def test_commits_are_conditional_puts_the_server_enforces(shared_uri: str, s3_server) -> None:
    store = RemoteStore(shared_uri, HashingEmbedder(64)).open()
    start = len(s3_server.relay.heads)
    store.add("failures", [{"id": "one", "text": "x"}])
    manifests = [h.lower() for h in s3_server.relay.heads[start:] if h.startswith(b"PUT") and b".manifest" in h]
    assert manifests and all(b"\r\nif-none-match: *" in h for h in manifests)
    bucket, key = shared_uri.split("/")[2], manifests[0].split(b" ")[1].decode().split("/", 2)[2]
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError, match="PreconditionFailed"):  # a second writer of that version loses
        s3_server.client().put_object(Bucket=bucket, Key=key, Body=b"other", IfNoneMatch="*")


def test_two_machines_writing_at_once_lose_no_row(shared_uri: str, tmp_path: Path) -> None:
    machines = [_machine(shared_uri, tmp_path / tag, tag, 8, 40) for tag in "ab"]
    for m in machines:
        out, errors = m.communicate(timeout=600)
        assert m.returncode == 0, errors[-3000:]
        assert out.strip().endswith("done")
    ids = _remote_ids(shared_uri)
    assert len(ids) == len(set(ids)) == 2 * 8 * 40
    assert set(ids) == {f"{t}-{b}-{i}" for t in "ab" for b in range(8) for i in range(40)}


def test_two_processes_writing_the_shared_store_directly_lose_no_row(shared_uri: str) -> None:
    """The existing two-writer test, on object storage: no cache, both append to the bucket at once."""
    MemoryStore(shared_uri, HashingEmbedder(64)).open()
    writers = [_writer(shared_uri, "a", 10, 20, compact_every=4), _writer(shared_uri, "b", 10, 20)]
    for w in writers:
        out, errors = w.communicate(timeout=600)
        assert w.returncode == 0, errors[-3000:]
    ids = [r["id"] for r in MemoryStore(shared_uri, HashingEmbedder(64)).open().rows("failures", columns=["id"], limit=10_000)]
    assert len(ids) == len(set(ids)) == 2 * 10 * 20


def test_kill_9_of_a_writer_loses_no_committed_row(shared_uri: str, tmp_path: Path) -> None:
    folder = tmp_path / "a"
    w = _machine(shared_uri, folder, "k", 1000, 300)
    assert w.stdout is not None
    assert w.stdout.readline().strip() == "open"
    committed: list[int] = []
    while len(committed) < 3:
        line = w.stdout.readline()
        assert line.startswith(("committed", "synced")), line + (w.stderr.read()[-2000:] if w.stderr else "")
        if line.startswith("committed"):
            committed.append(int(line.split()[2]))
    w.send_signal(signal.SIGKILL)  # somewhere in a sync or the next batch's write
    rest = w.stdout.read()
    w.wait(timeout=30)
    committed += [int(line.split()[2]) for line in rest.splitlines() if line.startswith("committed")]
    # The same machine's next process: its queue still holds whatever the killed sync had not committed.
    again = machine(shared_uri, folder).open()
    report = again.sync()
    assert "error" not in report and report["pending"] == 0, report
    ids = _remote_ids(shared_uri)
    assert len(ids) == len(set(ids))  # a batch pushed twice (killed after the commit) is not doubled
    assert {f"k-{b}-{i}" for b in committed for i in range(300)} <= set(ids)
    cached = {r["id"] for r in again.rows("failures", columns=["id"], limit=10_000_000)}
    assert set(ids) == cached  # whatever the cache holds was shared, nothing more
    assert len(ids) % 300 == 0


def test_kill_9_of_a_direct_writer_keeps_the_store_usable(shared_uri: str) -> None:
    MemoryStore(shared_uri, HashingEmbedder(64)).open()
    w = _writer(shared_uri, "d", 1000, 500)
    assert w.stdout is not None and w.stdout.readline().strip() == "open"
    committed = []
    while len(committed) < 2:
        line = w.stdout.readline()
        assert line.startswith("committed"), line
        committed.append(int(line.split()[2]))
    w.send_signal(signal.SIGKILL)
    rest = w.stdout.read()
    w.wait(timeout=30)
    committed += [int(line.split()[2]) for line in rest.splitlines() if line.startswith("committed")]
    store = MemoryStore(shared_uri, HashingEmbedder(64)).open()
    ids = {r["id"] for r in store.rows("failures", "project = 'd'", ["id"], limit=10_000_000)}
    assert {f"d-{b}-{i}" for b in committed for i in range(500)} <= ids and len(ids) % 500 == 0
    store.add("failures", [{"id": "after", "project": "after", "text": "still writable"}])
    assert store.count("failures", "project = 'after'") == 1

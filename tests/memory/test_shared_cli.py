"""`fixloop memory sync | push | pull` and `fixloop doctor` on a shared memory (real moto server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.shared import RemoteStore, SharedStore

from .s3server import SECRET
from .shared_helpers import failure

pytestmark = pytest.mark.e2e
runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, " ".join(result.stderr.split())  # rich wraps long lines


def test_sync_push_pull_and_doctor(shared_uri: str, tmp_path: Path, monkeypatch, s3_server) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("FIXLOOP_CONFIG", str(tmp_path / "none.toml"))
    # Written while the endpoint was away: queued, then `memory sync` sends it.
    s3_server.relay.stop()
    store = SharedStore(shared_uri, HashingEmbedder())
    store.add("failures", [failure("fixed once", fixed=True)])
    assert store.outbox.pending() == 1
    code, _, errors = _run("memory", "stats", "--memory", shared_uri)
    assert code == 0 and "did not answer" in errors and SECRET not in errors
    code, out, errors = _run("memory", "sync", "--memory", shared_uri)
    assert code == 1 and "stay queued" in errors
    s3_server.relay.start()
    code, out, errors = _run("memory", "sync", "--memory", shared_uri)
    assert code == 0, errors
    assert json.loads(out)["pending"] == 0
    remote = RemoteStore(shared_uri, HashingEmbedder()).open()
    assert remote.count("failures") == 1
    store.upsert("failures", [failure("cinema row", project="cinema", fixed=True)])
    code, out, _ = _run("memory", "push", "--project", "cinema", "--memory", shared_uri)
    assert code == 0 and json.loads(out)["pushed"] == 1
    assert RemoteStore(shared_uri, HashingEmbedder()).open().count("failures") == 2
    code, out, _ = _run("memory", "pull", "--project", "cinema", "--memory", shared_uri)
    assert code == 0 and json.loads(out)["pulled"] == 0
    code, out, _ = _run("doctor", str(tmp_path), "--memory", shared_uri)
    assert "memory: shared store at " + shared_uri in out and "reachable" in out and "writable" in out
    assert "memory.share = 'fixes-and-stats'" in out and "`fixloop memory sharing` lists what leaves" in out
    code, out, _ = _run("doctor", str(tmp_path), "--memory", "s3://no-such-bucket-x/team")
    assert "the bucket in memory.uri does not exist" in out and SECRET not in out


def test_sync_on_a_private_memory_says_what_to_set(tmp_path: Path) -> None:
    code, _, errors = _run("memory", "sync", "--memory", str(tmp_path / "m"))
    assert code == 2 and "s3://" in errors

"""Whole offline fix runs on two 'machines' sharing one memory on a real S3-compatible server: a bug
machine A fixed is replayed on machine B from its first candidate; with the endpoint gone, B's run
goes on, says so once, and its lesson reaches the team when the endpoint returns."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.application.run import RunRequest
from fixloop.core.model import Status
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.shared import RemoteStore
from fixloop.application.session import FixSession

from .test_loop_memory import FIRST, SECOND, _project

pytestmark = pytest.mark.e2e


def _settings(uri: str) -> Settings:
    return dataclasses.replace(Settings(), offline=True, sandbox=dataclasses.replace(Settings().sandbox, backend="none"),
                               memory=MemorySettings(uri=uri))


def _run(project: Path, uri: str, machine: Path, monkeypatch) -> tuple:
    monkeypatch.setenv("XDG_DATA_HOME", str(machine))  # each machine has its own cache and queue
    events: list = []
    session = FixSession(RunRequest(project, _settings(uri), notes=()))
    # The memory's notes (a shared store out of reach); not the runner's (a warm worker slow to start on a
    # loaded machine says so too, and the run goes on cold).
    return session.run(events.append), [e for e in events if e.kind == "note" and e.phase != "run"]


def test_machine_b_replays_the_fix_machine_a_found(shared_uri: str, tmp_path: Path, monkeypatch) -> None:
    first, notes = _run(_project(tmp_path / "first", FIRST), shared_uri, tmp_path / "machine-a", monkeypatch)
    assert first.status is Status.FIXED and first.patch is not None and first.patch.proposer != "memory"
    assert not notes
    second, notes = _run(_project(tmp_path / "second", SECOND), shared_uri, tmp_path / "machine-b", monkeypatch)
    assert second.status is Status.FIXED and second.patch is not None
    assert second.patch.proposer == "memory" and second.candidates_evaluated == 1
    assert "if age >= SENIOR_AGE:" in second.patch.changes[0].after and not notes
    remote = RemoteStore(shared_uri, HashingEmbedder()).open()
    assert {r["project"] for r in remote.rows("failures", columns=["project"])} == {"first", "second"}


def test_with_the_endpoint_gone_the_run_goes_on_and_syncs_later(shared_uri: str, tmp_path: Path, monkeypatch,
                                                              s3_server) -> None:
    s3_server.relay.stop()
    outcome, notes = _run(_project(tmp_path / "first", FIRST), shared_uri, tmp_path / "machine-a", monkeypatch)
    assert outcome.status is Status.FIXED
    assert len(notes) == 1 and "did not answer" in notes[0].data["message"]
    s3_server.relay.start()
    from fixloop.adapters.memory.factory import make_store

    store = make_store(MemorySettings(uri=shared_uri))  # machine A's next process (XDG_DATA_HOME still A's)
    report = store.sync()  # what `fixloop memory sync` does
    assert report["pushed"] >= 2 and report["pending"] == 0, report
    second, notes = _run(_project(tmp_path / "second", SECOND), shared_uri, tmp_path / "machine-b", monkeypatch)
    assert second.patch is not None and second.patch.proposer == "memory" and not notes

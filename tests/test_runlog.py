"""The run log on a real filesystem: written under .fixloop/runs/<id>, never through a planted link."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fixloop.core.model import Event, Outcome, Status
from fixloop.application.result import RunResult
from fixloop.application.runlog import RunLog, record_decision

OUTCOME = Outcome(Status.NOTHING_TO_FIX, "r1", "all tests pass")


def _log(ws: Path, run_id: str = "r1") -> RunLog:
    log = RunLog(ws, run_id)
    log.event(Event("started", run_id, 1.0, "start", None, {"note": "hello"}))
    return log


def test_a_plain_workspace_gets_its_log_under_dot_fixloop(tmp_path: Path) -> None:
    log = _log(tmp_path)
    summary = log.finish(RunResult(OUTCOME)).as_json()
    run_dir = tmp_path / ".fixloop" / "runs" / "r1"
    assert log.dir == run_dir and summary["run_dir"] == str(run_dir) and summary["run_log_notice"] == ""
    assert (tmp_path / ".fixloop" / ".gitignore").read_text() == "*\n"
    assert json.loads((run_dir / "events.jsonl").read_text())["note"] == "hello"
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "nothing_to_fix"
    assert sorted(os.listdir(run_dir)) == ["events.jsonl", "summary.json"]  # no temporary left behind
    assert record_decision(tmp_path, "r1", {"accepted": True})
    assert json.loads((run_dir / "decisions.jsonl").read_text()) == {"accepted": True}


def test_a_users_own_gitignore_is_kept(tmp_path: Path) -> None:
    (tmp_path / ".fixloop").mkdir()
    (tmp_path / ".fixloop" / ".gitignore").write_text("runs/\n")
    _log(tmp_path).finish(RunResult(OUTCOME))
    assert (tmp_path / ".fixloop" / ".gitignore").read_text() == "runs/\n"


@pytest.mark.parametrize("planted", [".fixloop", ".fixloop/.gitignore", ".fixloop/runs", "dangling-gitignore",
                                     ".fixloop-file"])
def test_a_planted_link_is_refused_and_the_log_goes_elsewhere(tmp_path: Path, planted: str) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    rc = outside / "bashrc"
    rc.write_text("# rc\n")
    if planted == ".fixloop":
        os.symlink(outside, ws / ".fixloop")
    elif planted == ".fixloop/.gitignore":
        (ws / ".fixloop").mkdir()
        os.symlink(rc, ws / ".fixloop" / ".gitignore")
    elif planted == "dangling-gitignore":
        (ws / ".fixloop").mkdir()
        os.symlink(outside / "new-file", ws / ".fixloop" / ".gitignore")
    elif planted == ".fixloop-file":
        (ws / ".fixloop").write_text("not a folder\n")
    else:
        (ws / ".fixloop").mkdir()
        os.symlink(outside, ws / ".fixloop" / "runs")
    log = _log(ws)
    summary = log.finish(RunResult(OUTCOME)).as_json()
    assert sorted(os.listdir(outside)) == ["bashrc"] and rc.read_text() == "# rc\n"
    assert not log.dir.is_relative_to(ws) and (log.dir / "summary.json").is_file()
    label = ".fixloop" if planted == ".fixloop-file" else planted.replace("dangling-gitignore", ".fixloop/.gitignore")
    assert label in summary["run_log_notice"] and str(log.dir) in summary["run_log_notice"]
    assert ("symlink" if planted != ".fixloop-file" else "not a folder") in summary["run_log_notice"]
    # The review's decisions are not written through the link either.
    assert not record_decision(ws, "r1", {"accepted": True})
    assert sorted(os.listdir(outside)) == ["bashrc"]


def test_a_decision_never_follows_a_planted_file_link(tmp_path: Path) -> None:
    _log(tmp_path).finish(RunResult(OUTCOME))
    target = tmp_path / "victim"
    target.write_text("keep\n")
    os.symlink(target, tmp_path / ".fixloop" / "runs" / "r1" / "decisions.jsonl")
    assert not record_decision(tmp_path, "r1", {"accepted": True})
    assert not record_decision(tmp_path, "../../x", {"accepted": True})
    assert target.read_text() == "keep\n"


def test_a_read_only_workspace_logs_to_a_private_folder(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes a read-only folder anyway")
    ws = tmp_path / "ro"
    ws.mkdir()
    os.chmod(ws, 0o555)
    try:
        log = _log(ws)
        summary = log.finish(RunResult(OUTCOME)).as_json()
    finally:
        os.chmod(ws, 0o755)
    assert not log.dir.is_relative_to(ws) and "this run's log is in" in summary["run_log_notice"]

"""Run folders are the project's (untrusted): garbage, torn files, links, FIFOs and old schemas are read
or skipped with a count and a reason, never followed, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.application.history import files
from fixloop.application.history.store import cache_file, load

from .synth import Cand, Spec, write

runner = CliRunner()


def _runs(project: Path) -> Path:
    return project / ".fixloop" / "runs"


def test_corrupt_and_truncated_files_are_read_as_far_as_they_go(tmp_path: Path) -> None:
    p = tmp_path / "p"
    good = write(p, Spec("20261101-090000-000001", cands=[Cand(status="plausible")]))
    torn = write(p, Spec("20261101-100000-000002", cands=[Cand(status="failed"), Cand(status="plausible")]))
    (torn / "summary.json").write_text('{"status": "fixed", "candi')  # cut mid-write
    with open(torn / "events.jsonl", "a") as fh:
        fh.write('{"kind": "tested", "stat')  # a torn last line
    garbage = _runs(p) / "20261101-110000-000003"
    garbage.mkdir()
    (garbage / "events.jsonl").write_bytes(b"\x00\xff not json\n[1, 2]\n\"str\"\n")
    h = load([p])
    by_id = {r["run_id"]: r for r in h.records}
    assert set(by_id) == {good.name, torn.name, garbage.name}
    t = by_id[torn.name]
    assert t["status"] == "fixed" and t["candidates"] == 2  # rebuilt from the events
    assert any("not valid JSON" in x for x in t["problems"]) and any("1 unreadable line" in x for x in t["problems"])
    g = by_id[garbage.name]
    assert g["status"] == "incomplete" and any("3 unreadable line" in x for x in g["problems"])
    result = runner.invoke(app, ["stats", str(p), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"] == 3 and json.loads(result.stdout)["runs_with_problems"] == 2


def test_links_fifos_and_empty_folders_are_skipped_never_followed(tmp_path: Path) -> None:
    p = tmp_path / "p"
    write(p, Spec("20261101-090000-000001", cands=[Cand(status="plausible")]))
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "summary.json").write_text(json.dumps({"status": "fixed", "message": "host file read"}))
    os.symlink(secret, _runs(p) / "20261101-100000-linked")  # a run folder that is a link: not a run
    fifo_run = _runs(p) / "20261101-110000-000003"
    fifo_run.mkdir()
    os.mkfifo(fifo_run / "events.jsonl")  # would hang a plain open()
    os.symlink(secret / "summary.json", fifo_run / "summary.json")
    (_runs(p) / "20261101-120000-000004").mkdir()  # empty
    h = load([p])
    assert [r["run_id"] for r in h.records] == ["20261101-090000-000001"]
    assert h.skipped == {"empty run folder": 2}
    assert not any("host file read" in json.dumps(r) for r in h.records)


def test_a_linked_fixloop_folder_is_no_history(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, Spec("20261101-090000-000001", cands=[Cand(status="plausible")]))
    p = tmp_path / "p"
    p.mkdir()
    os.symlink(elsewhere / ".fixloop", p / ".fixloop")
    assert load([p]).records == []


def test_a_file_over_its_cap_is_read_in_part(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "p"
    d = write(p, Spec("20261101-090000-000001", cands=[Cand(status="failed")] * 50 + [Cand(status="plausible")]))
    monkeypatch.setitem(files.CAPS, "events.jsonl", (d / "events.jsonl").stat().st_size // 2)
    (r,) = load([p]).records
    assert r["status"] == "fixed" and any("read the first" in x for x in r["problems"])


def test_runs_of_the_first_schema_stay_readable(tmp_path: Path) -> None:
    p = tmp_path / "p"
    write(p, Spec("20261101-090000-000001", cands=[Cand(status="failed"), Cand(status="plausible")], schema=1))
    (r,) = load([p]).records
    assert r["schema"] == 1 and r["candidates"] == 2 and r["first_try"] is False and r["lookup_seconds"] is None


def test_empty_history_says_so(tmp_path: Path) -> None:
    for cmd in (["history"], ["stats"]):
        result = runner.invoke(app, [*cmd, str(tmp_path)])
        assert result.exit_code == 0 and "no runs yet" in result.stderr, result.output
    result = runner.invoke(app, ["stats", str(tmp_path), "--json"])
    assert json.loads(result.stdout)["runs"] == 0
    result = runner.invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0 and "No runs yet" in (tmp_path / "r.html").read_text()


def test_bad_since_and_unknown_run_are_usage_messages(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", str(tmp_path), "--since", "last tuesday"])
    assert result.exit_code == 2 and "--since takes a date" in result.stderr
    result = runner.invoke(app, ["show", "20260101-000000-nothere", str(tmp_path)])
    assert result.exit_code == 1 and "no run" in result.stderr
    result = runner.invoke(app, ["show", "../..", str(tmp_path)])
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_the_cache_is_used_until_a_run_changes(tmp_path: Path) -> None:
    p = tmp_path / "p"
    d = write(p, Spec("20261101-090000-000001", cands=[Cand(status="plausible")]))
    assert load([p]).records[0]["status"] == "fixed"
    cached = json.loads(cache_file(str(p)).read_text())
    assert "20261101-090000-000001" in cached["runs"]
    # a changed summary (another size and mtime) is read again, not served from the cache
    (d / "summary.json").write_text(json.dumps({"status": "gave_up", "message": "changed"}))
    assert load([p]).records[0]["status"] == "gave_up"

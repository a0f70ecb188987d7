"""`fixloop trust list | revoke` on the user's ledger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixloop.cli import app

runner = CliRunner()
KIND = "search/compare_op/AssertionError"


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = tmp_path / "data" / "fixloop" / "trust.json"
    path.parent.mkdir(parents=True)
    entry = {"streak": ["r1", "r2"], "rejected": 0, "granted": 1_700_000_000.0, "asked_at": 0, "ended": ""}
    path.write_text(json.dumps({"version": 1, "projects": {
        str(tmp_path / "a"): {KIND: entry}, str(tmp_path / "b"): {KIND: entry, "checker/ruff-fix/ruff F401": entry}}}))
    return path


def test_list_shows_every_grant_or_one_projects(ledger: Path, tmp_path: Path) -> None:
    listed = json.loads(runner.invoke(app, ["trust", "list", "--json"]).stdout)
    assert sorted((Path(g["project"]).name, g["id"]) for g in listed) == [
        ("a", KIND), ("b", "checker/ruff-fix/ruff F401"), ("b", KIND)]
    only_a = json.loads(runner.invoke(app, ["trust", "list", "--json", "--project", str(tmp_path / "a")]).stdout)
    assert [(g["id"], g["accepted"]) for g in only_a] == [(KIND, 2)]
    table = runner.invoke(app, ["trust", "list"]).stdout
    assert "checker/ruff-fix/ruff F401  in " in table and "(2 accepted before)" in table


def test_revoke_one_then_all(ledger: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["trust", "revoke", KIND, "--project", str(tmp_path / "b")])
    assert result.exit_code == 0 and "revoked" in result.stdout
    left = json.loads(runner.invoke(app, ["trust", "list", "--json"]).stdout)
    assert sorted((Path(g["project"]).name, g["id"]) for g in left) == [("a", KIND), ("b", "checker/ruff-fix/ruff F401")]
    missing = runner.invoke(app, ["trust", "revoke", "nope/x/y"])
    assert missing.exit_code == 1 and "no grant" in missing.stderr
    assert runner.invoke(app, ["trust", "revoke", "all"]).exit_code == 0
    assert json.loads(runner.invoke(app, ["trust", "list", "--json"]).stdout) == []
    ended = json.loads(ledger.read_text())["projects"][str(tmp_path / "a")][KIND]
    assert ended["granted"] == 0 and ended["ended"] == "you revoked it"


def test_an_unreadable_ledger_is_named_and_grants_nothing(ledger: Path) -> None:
    ledger.write_text("[1, 2")
    result = runner.invoke(app, ["trust", "list", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    assert "unreadable" in result.stderr and "no fix is applied without asking" in result.stderr

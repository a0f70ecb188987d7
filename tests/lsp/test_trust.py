"""Trust grants through the language server: fixes of a kind accepted -> the question -> the grant; the next fix of
that kind goes into the buffer without asking (never to disk); the editor's own undo, or the notice's Undo,
ends the grant, and the next fix is offered for review again. Real offline search, real sandbox, real pytest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as t

from tests.lsp.lsp_harness import INVENTORY_PATCH, PRICING, Session, lsp, project

GRANT, KEEP_ASKING = "Apply fixes like this without asking", "Keep asking"


def _options(after: int = 1) -> dict[str, Any]:
    return {"settings": {"sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0}, "offline": True,
                         "memory": {"enabled": False}, "trust": {"after": after}}}


def _answering(s: Session, answers: dict[str, str]) -> list[str]:
    """Answer each message request by the first of `answers`' keys its text holds; the texts asked, in order."""
    asked: list[str] = []

    @s.client.feature(t.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_request(ls: Any, params: t.ShowMessageRequestParams) -> t.MessageActionItem | None:
        asked.append(params.message)
        titles = [a.title for a in params.actions or ()]
        for key, title in answers.items():
            if key in params.message and title in titles:
                return t.MessageActionItem(title=title)
        return None

    return asked


async def _fix(s: Session) -> dict[str, Any]:
    started = await s.command("fixloop.fix", {"scope": "workspace"})
    summary = await s.run_finished(started["run_id"], timeout=120)
    assert summary["status"] == "fixed", summary
    return summary


def _ledger(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "data" / "fixloop" / "trust.json").read_text())


@pytest.mark.e2e  # three fix runs in the sandbox; VS Code's profile (real Neovim: editors/neovim/tests/test_trust.lua)
async def test_grant_use_and_undo_of_a_trust_grant(tmp_path: Path) -> None:
    ws = project(tmp_path)
    buggy = (ws / PRICING).read_text()
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    async with lsp("visual-studio-code", ws, tmp_path, options=_options(), env=env) as s:
        asked = _answering(s, {"Apply fixes like this": GRANT, "without asking (": "Keep"})
        uri = s.uri(PRICING)
        s.editor.open(uri, buggy)

        # 1. Offered for review as always; accepted; then the question, and the user's yes makes the grant.
        first = await _fix(s)
        await s.until(lambda: len(s.editor.edits) == 1, what="the review's workspace/applyEdit")
        assert ">=" in s.editor.text(uri)
        await s.until(lambda: any("Apply fixes like this" in m for m in asked), what="the trust question")
        listed = await s.until_value(lambda: s.command("fixloop.trust", {}), lambda r: r["grants"], what="a grant")
        [grant] = listed["grants"]
        assert grant["id"] == f"search/{first['operator']}/AssertionError" and grant["accepted"] == 1
        assert (ws / PRICING).read_text() == buggy  # the review went into the buffer only

        # 2. The same kind of bug again: applied without asking (no confirmation), still never saved.
        s.editor.set_text(uri, buggy)
        second = await _fix(s)
        await s.until(lambda: len(s.editor.edits) == 2, what="the applied edit")
        edit = s.editor.edits[1]
        assert "without asking" in (edit.label or "")
        assert not any(a.needs_confirmation for a in (edit.edit.change_annotations or {}).values())
        assert ">=" in s.editor.text(uri) and (ws / PRICING).read_text() == buggy
        await s.until(lambda: any("applied a fix to inventory/pricing.py without asking" in m for m in asked),
                      what="the notice with Undo")
        assert set((await s.settled_states(second["run_id"])).values()) == {"accepted"}

        # 3. The user undoes it in the editor: the document is back as before; the grant ends.
        s.editor.set_text(uri, buggy)
        await s.until_value(lambda: s.command("fixloop.trust", {}), lambda r: not r["grants"], what="no grant")
        assert set((await s.states(second["run_id"])).values()) == {"rejected"}
        entry = next(iter(_ledger(tmp_path)["projects"][str(ws)].values()))
        assert entry["granted"] == 0 and entry["rejected"] == 1 and "undid" in entry["ended"]

        # 4. The next fix of that kind is offered for review again.
        await _fix(s)
        await s.until(lambda: len(s.editor.edits) == 3, what="the review's workspace/applyEdit")
        assert "without asking" not in (s.editor.edits[2].label or "")


@pytest.mark.e2e
async def test_the_notices_undo_takes_the_fix_back_and_ends_the_grant(tmp_path: Path) -> None:
    ws = project(tmp_path)
    buggy = (ws / PRICING).read_text()
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    async with lsp("visual-studio-code", ws, tmp_path, options=_options(), env=env) as s:
        asked = _answering(s, {"Apply fixes like this": GRANT, "without asking (": "Undo"})
        uri = s.uri(PRICING)
        s.editor.open(uri, buggy)
        await _fix(s)
        await s.until_value(lambda: s.command("fixloop.trust", {}), lambda r: r["grants"], what="a grant")
        s.editor.set_text(uri, buggy)
        second = await _fix(s)
        # The notice's Undo: the server takes its edit back out of the buffer, and the grant is gone.
        await s.until(lambda: len(s.editor.edits) == 3, what="the undo's workspace/applyEdit")
        assert s.editor.text(uri) == buggy
        await s.until_value(lambda: s.command("fixloop.trust", {}), lambda r: not r["grants"], what="no grant")
        assert set((await s.states(second["run_id"])).values()) == {"rejected"}
        assert sum("Apply fixes like this" in m for m in asked) == 1
        with pytest.raises(Exception, match="no fix applied without asking to undo"):
            await s.command("fixloop.undo", {})


async def test_trust_commands_and_a_project_that_asks_for_trust(tmp_path: Path) -> None:
    ws = project(tmp_path)
    (ws / "pyproject.toml").write_text("[tool.fixloop.trust]\nafter = 1\nmodel = true\n")
    data = tmp_path / "data" / "fixloop"
    data.mkdir(parents=True)
    kind = "search/compare_op/AssertionError"
    (data / "trust.json").write_text(json.dumps({"version": 1, "projects": {str(ws): {
        kind: {"streak": ["r1"], "rejected": 0, "granted": 1.0, "asked_at": 0, "ended": ""}}}}))
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    async with lsp("neovim@v0.11.0", ws, tmp_path, options={"settings": {"trust": {"after": 3}}}, env=env) as s:
        listed = await s.command("fixloop.trust", {})
        assert listed["after"] == 3 and listed["model"] is False  # the project's own asks are refused
        assert [g["id"] for g in listed["grants"]] == [kind]
        with pytest.raises(Exception, match="no grant 'nope' in this project"):
            await s.command("fixloop.trust", {"revoke": "nope"})
        with pytest.raises(Exception, match="'revoke' must be"):
            await s.command("fixloop.trust", {"revoke": 3})
        revoked = await s.command("fixloop.trust", {"revoke": kind})
        assert revoked["revoked"] == [kind] and revoked["grants"] == []
        assert (await s.command("fixloop.settings", {}))["settings"]["trust"] == {"after": 3, "model": False}
    entry = json.loads((data / "trust.json").read_text())["projects"][str(ws)][kind]
    assert entry["granted"] == 0 and entry["ended"] == "you revoked it"


async def test_an_unreadable_ledger_grants_nothing_and_is_kept_aside(tmp_path: Path) -> None:
    ws = project(tmp_path)
    data = tmp_path / "data" / "fixloop"
    data.mkdir(parents=True)
    (data / "trust.json").write_text("{not json")
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    async with lsp("visual-studio-code", ws, tmp_path, options=_options(), env=env) as s:
        assert (await s.command("fixloop.trust", {}))["grants"] == []
        await s.until(lambda: any("trust ledger" in m.message and "unreadable" in m.message for m in s.client.messages),
                      what="the warning")
    [aside] = data.glob("trust.json.unreadable-*")
    assert aside.read_text() == "{not json"  # kept for the user to look at, never overwritten


@pytest.mark.e2e
async def test_a_trusted_fix_whose_lines_changed_during_the_run_is_never_half_applied(tmp_path: Path) -> None:
    """A fix of two hunks under a grant (a kind the scripted proposer makes, the model's opt-in on); the user
    rewrites one hunk's line during the run: nothing goes in without asking, the fix is offered for review."""
    ws = project(tmp_path)
    buggy = (ws / PRICING).read_text()
    data = tmp_path / "data" / "fixloop"
    data.mkdir(parents=True)
    kind = "other/script/AssertionError"
    (data / "trust.json").write_text(json.dumps({"version": 1, "projects": {str(ws): {
        kind: {"streak": ["r1"], "rejected": 0, "granted": 1.0, "asked_at": 0, "ended": ""}}}}))
    options = _options()
    options["settings"]["trust"]["model"] = True
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    async with lsp("visual-studio-code", ws, tmp_path, options=options, env=env, patches=INVENTORY_PATCH) as s:
        uri = s.uri(PRICING)
        s.editor.open(uri, buggy)
        started = await s.command("fixloop.fix", {"scope": "workspace"})
        # While it runs, the user rewrites the line of the fix's first hunk (the second still applies).
        edited = buggy.replace("BULK_DISCOUNT = 0.1\n", "BULK_DISCOUNT = 0.15\n")
        s.editor.set_text(uri, edited)
        summary = await s.run_finished(started["run_id"], timeout=120)
        assert summary["status"] == "fixed" and summary["applied_without_asking"] == kind, summary
        await s.until(lambda: any("could not be applied as it is" in m.message for m in s.client.messages),
                      what="the warning")
        await s.until(lambda: s.editor.edits, what="the review's workspace/applyEdit")
        review = s.editor.edits[0]
        assert "without asking" not in (review.label or "")
        assert all(a.needs_confirmation for a in (review.edit.change_annotations or {}).values())
        assert (await s.command("fixloop.trust", {}))["grants"][0]["id"] == kind  # not the user's rejection

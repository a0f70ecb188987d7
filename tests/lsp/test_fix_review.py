"""A fix on a copy of examples/inventory, with progress, then review hunk by hunk."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from lsprotocol import types as t

from tests.lsp.lsp_harness import INVENTORY_PATCH, PRICING, lsp, project


def decisions(workspace: Path, run_id: str) -> list[dict]:
    path = workspace / ".fixloop" / "runs" / run_id / "decisions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.e2e  # a whole fix run: 4 pytest runs in the sandbox (about 8-35 s, depending on load)
async def test_fix_reports_progress_and_offers_hunks(profile: str, tmp_path: Path) -> None:
    ws = project(tmp_path)
    async with lsp(profile, ws, tmp_path, patches=INVENTORY_PATCH) as s:
        # VS Code: the user ticks only the real fix. Neovim: the user answers No (and Neovim still says applied).
        s.editor.take = {f"{PRICING}#1"} if s.editor.vscode else "none"
        pricing_uri = s.uri(PRICING)
        s.editor.open(pricing_uri, (ws / PRICING).read_text())
        started = await s.command("fixloop.fix", {"uri": pricing_uri, "scope": "workspace"})
        assert started["queued"] is False
        run_id = started["run_id"]
        # While the fix runs the user adds a line at the top (hunks shift) and edits hunk #0's line.
        edited = "# edited during the run\n" + s.editor.text(pricing_uri).replace(
            "BULK_DISCOUNT = 0.1\n", "BULK_DISCOUNT = 0.15\n")
        s.editor.set_text(pricing_uri, edited)
        summary = await s.run_finished(run_id)
        assert summary["status"] == "fixed", summary
        assert [h["id"] for h in summary["hunks"]] == [f"{PRICING}#0", f"{PRICING}#1"]
        assert "+    if quantity >= BULK_THRESHOLD:" in summary["diff"]

        token = f"fixloop-{run_id}"
        reports = s.client.progress_reports[token]
        assert isinstance(reports[0], t.WorkDoneProgressBegin) and reports[0].title == "fixloop"
        assert reports[0].cancellable is True
        messages = [r.message for r in reports if isinstance(r, t.WorkDoneProgressReport)]
        assert reports[0].message == "starting"
        # The candidate n/N and where it changes the code (at a bounded rate: a report may show the search or the
        # confirmation run that follows).
        assert any(re.match(r"(search|confirm): candidate 1/400, inventory/pricing\.py:\d+ script", m)
                   for m in messages), messages
        assert isinstance(reports[-1], t.WorkDoneProgressEnd) and reports[-1].message.startswith("fixed")

        await s.until(lambda: s.editor.edits, what="workspace/applyEdit")
        edit = s.editor.edits[0].edit
        if s.editor.vscode:
            assert edit.document_changes and edit.document_changes[0].text_document.version == 2
            annotations = edit.change_annotations
            assert set(annotations) == {f"{PRICING}#1"}  # #0 conflicts: not offered
            assert all(a.needs_confirmation for a in annotations.values())
        else:
            assert edit.changes and pricing_uri in edit.changes and not edit.document_changes

        got = await s.settled_states(run_id)
        if s.editor.vscode:  # the ticked hunk landed on the shifted line; the user's edits stay
            assert got == {f"{PRICING}#0": "conflict", f"{PRICING}#1": "accepted"}
            assert s.editor.text(pricing_uri) == edited.replace("if quantity > BULK", "if quantity >= BULK")
        else:  # applied=true, yet the document shows nothing was taken
            assert got == {f"{PRICING}#0": "conflict", f"{PRICING}#1": "rejected"}
            assert s.editor.text(pricing_uri) == edited
        shown = await s.command("fixloop.showRun", {"run_id": run_id})
        conflict = shown["hunks"][0]
        assert "edited since the run" in conflict["message"] and conflict["new"] == "BULK_DISCOUNT = 0.10\n"
        assert any("you changed these lines during the run" in m.message for m in s.client.messages)
        recorded = {d["hunk"]: d["accepted"] for d in decisions(ws, run_id)}
        assert recorded == {f"{PRICING}#1": s.editor.vscode}
        # The user's files on disk are untouched: edits live in the editor until the user saves.
        assert "if quantity > BULK_THRESHOLD:" in (ws / PRICING).read_text()
        assert s.scratch_dirs() == []


CALC = {
    "calc/__init__.py": "",
    "calc/ops.py": (
        "# arithmetic helpers\n"
        "def add(a, b):\n    return a + b\n\n\n"
        "def sub(a, b):\n    return a + b\n\n\n"
        "def mul(a, b):\n    return a * b\n"
    ),
    "tests/test_ops.py": (
        "from calc.ops import add, mul, sub\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_sub():\n    assert sub(5, 3) == 2\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n"
    ),
}
OPS = "calc/ops.py"
CALC_PATCH = [{"summary": "sub subtracts", "edits": [
    {"path": OPS, "old": "# arithmetic helpers\n", "new": "# arithmetic helpers (fixed)\n"},
    {"path": OPS, "old": "def sub(a, b):\n    return a + b\n", "new": "def sub(a, b):\n    return a - b\n"},
    {"path": OPS, "old": "    return a * b\n", "new": "    return b * a\n"},
]}]


def calc_project(tmp_path: Path) -> Path:
    ws = tmp_path / "calc ws"  # a space: the URIs of the edit are percent-encoded
    for rel, text in CALC.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    return ws


@pytest.mark.e2e  # a whole fix run: 4 pytest runs in the sandbox (about 8-35 s, depending on load)
async def test_client_review_accept_reject_and_conflict(profile: str, tmp_path: Path) -> None:
    """The Neovim plugin's way (review "client"): showRun, then accept/reject chosen hunks."""
    ws = calc_project(tmp_path)
    async with lsp(profile, ws, tmp_path, options={"review": "client"}, patches=CALC_PATCH) as s:
        run_id = (await s.command("fixloop.fix", {"scope": "workspace"}))["run_id"]
        summary = await s.run_finished(run_id)
        assert summary["status"] == "fixed", summary
        assert s.editor.edits == []  # review "client": nothing is sent by itself
        shown = await s.command("fixloop.showRun", {})  # the latest run
        assert shown["run_id"] == run_id and "-    return a + b\n+    return a - b" in shown["diff"]
        ids = [h["id"] for h in shown["hunks"]]
        assert ids == [f"{OPS}#0", f"{OPS}#1", f"{OPS}#2"]
        assert shown["hunks"][1]["start_line"] == 6 and shown["hunks"][1]["end_line"] == 7

        # accept one hunk of a file that is not open: the editor opens it and applies the edit
        result = await s.command("fixloop.accept", {"run_id": run_id, "hunks": [ids[1]]})
        assert result == {"applied": [ids[1]], "conflicts": []}
        annotations = s.editor.edits[-1].edit.change_annotations or {}
        assert not any(a.needs_confirmation for a in annotations.values())  # no confirmation asked
        ops_uri = s.uri(OPS)
        assert "return a - b" in s.editor.text(ops_uri) and "(fixed)" not in s.editor.text(ops_uri)

        # the user edits the line of hunk #0: accepting it is refused, the proposal is kept
        s.editor.set_text(ops_uri, s.editor.text(ops_uri).replace("# arithmetic helpers", "# maths"))
        await s.until(lambda: True)
        result = await s.command("fixloop.accept", {"run_id": run_id, "hunks": [ids[0]]})
        assert result["applied"] == [] and result["conflicts"][0]["id"] == ids[0]
        assert "edited since the run" in result["conflicts"][0]["message"]
        assert (await s.states(run_id))[ids[0]] == "conflict"

        rejected = await s.command("fixloop.reject", {"run_id": run_id, "hunks": [ids[2]]})
        assert rejected == {"rejected": [ids[2]]}
        # with no hunks named, reject takes whatever is still open (the conflict)
        assert await s.command("fixloop.reject", {"run_id": run_id}) == {"rejected": [ids[0]]}
        assert await s.states(run_id) == {ids[0]: "rejected", ids[1]: "accepted", ids[2]: "rejected"}
        recorded = {d["hunk"]: d["accepted"] for d in decisions(ws, run_id)}
        assert recorded == {ids[0]: False, ids[1]: True, ids[2]: False}
        assert "return a + b\n\n\ndef mul" not in s.editor.text(ops_uri)
        assert (ws / OPS).read_text() == CALC[OPS]  # disk untouched until the editor saves


@pytest.mark.e2e  # a whole fix run, the user's hooks real processes
async def test_the_users_hooks_hear_of_the_fix_and_of_what_the_editor_applied(profile: str, tmp_path: Path) -> None:
    ws = calc_project(tmp_path)
    told = tmp_path / "told"
    told.mkdir()
    script = tmp_path / "tell.py"
    script.write_text("import os, sys\nopen(os.path.join(%r, os.environ['FIXLOOP_HOOK']), 'w').write(sys.stdin.read())\n"
                      "print('heard by ' + os.environ['FIXLOOP_HOOK'])\n" % str(told))
    hook = json.dumps([sys.executable, str(script)])
    user = tmp_path / "config.toml"
    user.write_text(f"[hooks]\npost_fix = {hook}\non_apply = {hook}\n")
    async with lsp(profile, ws, tmp_path, options={"review": "client"}, patches=CALC_PATCH,
                   env={"FIXLOOP_CONFIG": str(user)}) as s:
        run_id = (await s.command("fixloop.fix", {"scope": "workspace"}))["run_id"]
        assert (await s.run_finished(run_id))["status"] == "fixed"
        await s.until(lambda: any("post_fix hook: heard by post_fix" in m.message for m in s.client.messages),
                      what="the post_fix hook's answer")
        assert "(fixed)" in (told / "post_fix").read_text()  # the whole fix, before any decision
        assert not (told / "on_apply").exists()
        result = await s.command("fixloop.accept", {"run_id": run_id, "hunks": [f"{OPS}#1"]})
        assert result["applied"] == [f"{OPS}#1"]
        await s.until(lambda: any("on_apply hook: heard by on_apply" in m.message for m in s.client.messages),
                      what="the on_apply hook's answer")
        applied = (told / "on_apply").read_text()
        assert "+    return a - b" in applied and "(fixed)" not in applied  # only the hunk the user took

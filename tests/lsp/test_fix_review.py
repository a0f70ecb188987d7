"""A fix on a copy of examples/inventory, with progress, then review hunk by hunk."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types as t

from lsp_harness import INVENTORY_PATCH, PRICING, lsp, project


def decisions(workspace: Path, run_id: str) -> list[dict]:
    path = workspace / ".fixloop" / "runs" / run_id / "decisions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


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
        summary = await s.run_finished(run_id)
        assert summary["status"] == "fixed", summary
        assert [h["id"] for h in summary["hunks"]] == [f"{PRICING}#0", f"{PRICING}#1"]
        assert "+    if quantity >= BULK_THRESHOLD:" in summary["diff"]

        token = f"fixloop-{run_id}"
        reports = s.client.progress_reports[token]
        assert isinstance(reports[0], t.WorkDoneProgressBegin) and reports[0].title == "fixloop"
        assert reports[0].cancellable is True
        messages = [r.message for r in reports if isinstance(r, t.WorkDoneProgressReport)]
        assert any(m.startswith("baseline: candidate 0, tests 9 passed / 2 failed") for m in messages), messages
        assert any(m.startswith("run: candidate 1, tests ") and m.endswith(", 0 tokens") for m in messages), messages
        assert isinstance(reports[-1], t.WorkDoneProgressEnd) and reports[-1].message.startswith("fixed")

        await s.until(lambda: s.editor.edits, what="workspace/applyEdit")
        edit = s.editor.edits[0].edit
        if s.editor.vscode:
            assert edit.document_changes and edit.document_changes[0].text_document.version == 1
            annotations = edit.change_annotations
            assert set(annotations) == {f"{PRICING}#0", f"{PRICING}#1"}
            assert all(a.needs_confirmation for a in annotations.values())
        else:
            assert edit.changes and pricing_uri in edit.changes and not edit.document_changes

        got = await s.settled_states(run_id)
        if s.editor.vscode:
            assert got == {f"{PRICING}#0": "rejected", f"{PRICING}#1": "accepted"}
            assert "if quantity >= BULK_THRESHOLD:" in s.editor.text(pricing_uri)
            assert "BULK_DISCOUNT = 0.1\n" in s.editor.text(pricing_uri)
        else:  # applied=true, yet the document shows nothing was taken
            assert got == {f"{PRICING}#0": "rejected", f"{PRICING}#1": "rejected"}
            assert "if quantity > BULK_THRESHOLD:" in s.editor.text(pricing_uri)
        recorded = {d["hunk"]: d["accepted"] for d in decisions(ws, run_id)}
        assert recorded == {h: state == "accepted" for h, state in got.items()}
        # The user's files on disk are untouched: edits live in the editor until the user saves.
        assert "if quantity > BULK_THRESHOLD:" in (ws / PRICING).read_text()
        assert s.scratch_dirs() == []

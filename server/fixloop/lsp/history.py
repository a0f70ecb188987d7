"""`fixloop.history`, `fixloop.stats`, `fixloop.report`, and `fixloop.showRun` of a past run: the run history
for any LSP client. Reading run folders and drawing plots go to a worker thread, off the event loop."""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import os
from pathlib import Path
from typing import Any, Mapping

from fixloop.core.model import FileChange, Patch
from fixloop.lsp.contract import HISTORY, REPORT, STATS
from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput, read_disk_text
from fixloop.lsp.review_edits import Reviewer

MAX_LIMIT = 10_000


def _flag(arg: Mapping[str, Any], name: str, command: str) -> bool:
    value = arg.get(name, False)
    if not isinstance(value, bool):
        raise BadInput(f"{command}: '{name}' must be true or false, got {value!r:.60}")
    return value


def _since(arg: Mapping[str, Any], command: str) -> float | None:
    value = arg.get("since")
    if value is None:
        return None
    try:
        return datetime.datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        raise BadInput(f"{command}: 'since' must be a date like 2026-11-01, got {value!r:.60}") from None


class HistoryCommands:
    def __init__(self, editor: Editor, review: Reviewer) -> None:
        self.editor = editor
        self.review = review

    def _projects(self, all_projects: bool) -> list[Path]:
        from fixloop.application.history.store import known_projects

        root = self.editor.root()
        mine = [root] if root is not None else []
        if all_projects:
            return mine + [Path(p) for p in known_projects()]
        if not mine:
            raise BadInput("no workspace folder is open: open the project's folder (or ask for all_projects)")
        return mine

    def _load(self, arg: Mapping[str, Any], command: str) -> Any:
        from fixloop.application.history.store import load

        return load(self._projects(_flag(arg, "all_projects", command)), _since(arg, command))

    async def history(self, arg: Mapping[str, Any]) -> dict[str, Any]:
        from fixloop.application.history.cli import history_rows

        limit = arg.get("limit", 200)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_LIMIT:
            raise BadInput(f"{HISTORY}: 'limit' must be a whole number from 0 to {MAX_LIMIT}")
        h = await asyncio.to_thread(self._load, arg, HISTORY)
        rows = history_rows(h.records[-limit:] if limit else h.records)
        return {"runs": rows[::-1], "total": len(h.records), "skipped": h.skipped}  # newest first, for a picker

    async def stats(self, arg: Mapping[str, Any]) -> dict[str, Any]:
        from fixloop.application.history import kpis
        from fixloop.application.history.text import headline

        h = await asyncio.to_thread(self._load, arg, STATS)
        k = kpis.compute(h.records)
        return {**k, "skipped": h.skipped, "headline": [list(x) for x in headline(k)]}

    async def report(self, arg: Mapping[str, Any]) -> dict[str, Any]:
        from fixloop.application.history import kpis
        from fixloop.application.history.html import write_report
        from fixloop.application.history.store import data_dir
        from fixloop.application.history.text import headline

        def work() -> dict[str, Any]:
            h = self._load(arg, REPORT)
            k = kpis.compute(h.records)
            root = str(self.editor.root() or "all")
            name = "report-" + hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:12] + ".html"
            path, note = write_report(data_dir() / "reports" / name, h, k)  # the user's data dir, not the project
            return {"path": str(path), "html": path.read_text(encoding="utf-8"), "note": note, "runs": k["runs"],
                    "headline": [list(x) for x in headline(k)]}

        return await asyncio.to_thread(work)

    def show_run(self, run_id: str | None) -> dict[str, Any] | None:
        """A run this server saw, else a past run of this workspace read from `.fixloop/runs` (reviewable
        again where its diff still applies to the files as they are now)."""
        shown = self.review.show(run_id)
        if shown is not None or run_id is None:
            return shown
        past = self._past(run_id)
        if past is None:
            return None
        summary, patch = past
        self.review.put(run_id, summary, patch)
        return self.review.show(run_id)

    def _past(self, run_id: str) -> tuple[dict[str, Any], Patch | None] | None:
        from fixloop.application.history import diffs, files, record
        from fixloop.kit.rundir import valid_run_id

        root = self.editor.root()
        if root is None or not valid_run_id(run_id) or run_id.startswith("."):
            return None
        runs_fd = files.open_runs_dir(root)
        if runs_fd is None:
            return None
        try:
            if not files.is_run_dir(runs_fd, run_id):
                return None
            raw = files.read_run(runs_fd, run_id, (*files.RUN_FILES, "fix.diff"))
        finally:
            os.close(runs_fd)
        rec = record.build(run_id, str(root), raw.data, raw.problems, 0.0)
        diff = raw.data.get("fix.diff", b"").decode("utf-8", "replace")
        changes: list[FileChange] = []
        notes: list[str] = []
        for fd in diffs.parse(diff):
            doc = self.editor.document(root.joinpath(fd.path).as_uri())
            try:
                before = doc.source if doc is not None else read_disk_text(root, fd.path, self.editor.max_file_bytes())
            except BadInput as e:
                notes.append(str(e))
                continue
            after = diffs.apply(before, fd)
            if after is None:
                notes.append(f"{fd.path}: the file changed since this run (or the fix is in already)")
            elif after != before:
                changes.append(FileChange(fd.path, before, after))
        patch = Patch(tuple(changes), rec["proposer"] or "history", rec["operator"] or "replay",
                      f"past run {run_id}") if changes and not notes else None
        summary = {"run_id": run_id, "status": rec["status"], "message": rec["message"], "diff": diff,
                   "files_changed": [c.path for c in changes] or rec["files_changed"],
                   "candidates_evaluated": rec["candidates"], "test_runs": rec["test_runs"], "tokens": rec["tokens"],
                   "cost_usd": rec["cost_usd"], "wall_seconds": rec["seconds"], "past": True,
                   "decision": rec["decision"], "note": "; ".join(notes)}
        return summary, patch

"""`fixloop.writeTests {uri, position}`: tests for the function at the position, written in the background
(the sandboxed recording takes seconds) and offered as a new file through the review flow."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Callable, Mapping

from lsprotocol import types as t

from fixloop.application.runlog import new_run_id
from fixloop.lsp.contract import RUN_FINISHED, WRITE_TESTS
from fixloop.lsp.editor import Editor
from fixloop.lsp.overlays import open_python_texts
from fixloop.lsp.paths import BadInput, is_python, read_disk_text, relative_path
from fixloop.lsp.review_edits import Reviewer
from fixloop.lsp.runs import run_settings

log = logging.getLogger(__name__)


def function_spec(editor: Editor, arg: Mapping[str, Any]) -> tuple[Path, str]:
    """(workspace, `rel::qualname`) of the function at the argument's position, or BadInput."""
    root = editor.root()
    if root is None:
        raise BadInput("no workspace folder is open: open the project's folder to write tests")
    uri = arg.get("uri")
    if not isinstance(uri, str) or not uri:
        raise BadInput(f"{WRITE_TESTS}: 'uri' is required")
    rel = relative_path(root, uri)
    doc = editor.document(uri)
    if not is_python(rel, doc.language_id if doc else None):
        raise BadInput(f"{rel} is not a Python file")
    position = arg.get("position")
    if not isinstance(position, Mapping) or not isinstance(position.get("line"), int) or position["line"] < 0:
        raise BadInput(f"{WRITE_TESTS} needs \"position\": {{\"line\": n, \"character\": n}}")
    limit = editor.max_file_bytes()
    text = doc.source if doc is not None else read_disk_text(root, rel, limit)
    from fixloop.application.testgen.target import function_at  # tree-sitter loads when the command is used

    qualname = function_at(text, position["line"])
    if qualname is None:
        raise BadInput(f"no function definition at {rel} line {position['line'] + 1}")
    return root, f"{rel}::{qualname}"


class TestWriter:
    """One generation at a time; each ends with a `fixloop/runFinished` summary and, when tests were
    written, a proposal (a new file) in the reviewer."""

    __test__ = False

    def __init__(self, editor: Editor, review: Reviewer, progress: Callable[[], Any]) -> None:
        self.editor = editor
        self.review = review
        self.progress = progress
        self.busy: str | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    def submit(self, arg: Mapping[str, Any]) -> dict[str, Any]:
        root, spec = function_spec(self.editor, arg)
        if self.busy is not None:
            raise BadInput(f"tests are being written for {self.busy}; wait for it to finish")
        run_id = "tests-" + new_run_id()
        self.busy = spec
        task = asyncio.ensure_future(self._work(root, spec, run_id, open_python_texts(self.editor, root)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return {"run_id": run_id, "function": spec}

    async def _work(self, root: Path, spec: str, run_id: str, overlays: dict[str, str]) -> None:
        from fixloop.application.testgen.service import generate  # the sandbox and runner load only when asked for
        from fixloop.application.testgen.target import TestgenError

        token = f"fixloop-{run_id}"
        progress = await self._begin(token, spec)
        summary: dict[str, Any] = {"run_id": run_id, "kind": "tests", "function": spec}
        made = None
        try:
            made = await asyncio.to_thread(generate, root, spec, run_settings(self.editor.config()), overlays)
            summary.update(made.summary(), status="generated", files_changed=[made.path], text=made.text,
                           message=f"{len(made.tests)} test(s) for {spec} in {made.path}"
                           + (f", {len(made.suspected)} suspected bug(s)" if made.suspected else ""))
        except TestgenError as e:
            summary.update(status="error", message=str(e))
            self.editor.show(t.MessageType.Error, f"fixloop: {e}")
        except Exception as e:  # sandbox or interpreter problems: a message, never a crash
            log.exception("writing tests failed")
            summary.update(status="error", message=f"{type(e).__name__}: {e}")
            self.editor.show(t.MessageType.Error, f"fixloop: writing tests failed: {e}")
        finally:
            self.busy = None
            if progress:
                self.progress().end(token, t.WorkDoneProgressEnd(message=f"{summary.get('status')}"))
                self.progress().tokens.pop(token, None)
        await self._finish(run_id, summary, made)

    async def _finish(self, run_id: str, summary: dict[str, Any], made: Any) -> None:
        if made is None:
            self.review.put(run_id, summary, None)
            self.review.notify(RUN_FINISHED, self.review.show(run_id) or summary)
            return
        self.review.put(run_id, summary, made.patch(), new_files={made.path})
        proposal = self.review.proposal(run_id)
        bugs = "; ".join(f"{b['name']}: {b.get('reason', '')}" for b in made.suspected)
        for h in proposal.hunks:
            h.message = f"suspected bug(s): {bugs}" if bugs else ""
        if bugs:
            self.editor.show(t.MessageType.Warning, f"fixloop: suspected bug in {made.target.label}: {bugs}")
        self.review.latest = run_id
        self.review.notify(RUN_FINISHED, self.review.show(run_id) or summary)
        if self.editor.config().review == "workspaceEdit":
            try:
                await self.review.offer(proposal)
            except Exception:
                log.exception("offering the tests failed")

    async def _begin(self, token: str, spec: str) -> bool:
        window = self.editor.capabilities().window
        if not (window and window.work_done_progress):
            return False
        try:
            await asyncio.wait_for(self.progress().create_async(token), timeout=5)
        except Exception:
            return False
        self.progress().begin(token, t.WorkDoneProgressBegin(title="fixloop: writing tests", message=spec))
        return True

"""End-to-end harness: the real server over stdio (pytest-lsp), under the VS Code and the Neovim 0.11
client capability profiles, with a test editor that keeps documents and answers workspace/applyEdit
the way each editor does (VS Code: per-hunk ticks, honest `applied`; Neovim: all or nothing, and
`applied=true` even when the user says No)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, AsyncIterator, Union

import pytest
import pytest_lsp
from lsprotocol import types as t
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient, client_capabilities

from tests.conftest import PYTHON

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = Path(__file__).with_name("launch.py")
PROFILES = ["visual-studio-code", "neovim@v0.11.0"]
INVENTORY = ROOT / "examples" / "inventory"

# Two hunks in inventory/pricing.py: #0 a harmless cosmetic change, #1 the real fix.
INVENTORY_PATCH = [{"summary": "bulk discount from ten units", "edits": [
    {"path": "inventory/pricing.py", "old": "BULK_DISCOUNT = 0.1\n", "new": "BULK_DISCOUNT = 0.10\n"},
    {"path": "inventory/pricing.py", "old": "if quantity > BULK_THRESHOLD:", "new": "if quantity >= BULK_THRESHOLD:"},
]}]
PRICING = "inventory/pricing.py"


class Editor:
    """The test client's editor: open documents, and a reviewer answering workspace/applyEdit."""

    def __init__(self, client: LanguageClient, profile: str) -> None:
        self.client = client
        self.profile = profile
        self.docs: dict[str, tuple[str, int]] = {}
        self.take: set[str] | str = "all"  # hunk ids (VS Code ticks) or "all" / "none"
        self.edits: list[t.ApplyWorkspaceEditParams] = []

    @property
    def vscode(self) -> bool:
        return self.profile.startswith("visual-studio-code")

    def open(self, uri: str, text: str, language: str = "python") -> None:
        self.docs[uri] = (text, 1)
        self.client.text_document_did_open(t.DidOpenTextDocumentParams(
            text_document=t.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))

    def set_text(self, uri: str, text: str) -> None:
        _, version = self.docs[uri]
        self.docs[uri] = (text, version + 1)
        self.client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)]))

    def text(self, uri: str) -> str:
        return self.docs[uri][0]

    def on_apply_edit(self, params: t.ApplyWorkspaceEditParams) -> t.ApplyWorkspaceEditResult:
        self.edits.append(params)
        edit = params.edit
        per_uri: list[tuple[str, list[Any]]] = []
        needs_confirmation = any(a.needs_confirmation for a in (edit.change_annotations or {}).values())
        if edit.document_changes:
            for c in edit.document_changes:
                if isinstance(c, t.CreateFile):  # both editors create the file on disk, then edit its buffer
                    path = Path(to_fs_path(c.uri) or "")
                    if not self._wants(c, needs_confirmation):
                        continue
                    if path.exists():
                        return t.ApplyWorkspaceEditResult(applied=False, failure_reason=f"{path} exists")
                    path.write_text("")
                    self.open(c.uri, "")
            per_uri = [(c.text_document.uri, list(c.edits)) for c in edit.document_changes
                       if isinstance(c, t.TextDocumentEdit)]
        elif edit.changes:
            per_uri = list(edit.changes.items())
        took_any = False
        for uri, edits in per_uri:
            chosen = [e for e in edits if self._wants(e, needs_confirmation)]
            if not chosen:
                continue
            took_any = True
            if uri not in self.docs:  # VS Code and Neovim open the file to edit it (a new one is empty)
                path = Path(to_fs_path(uri) or "")
                self.open(uri, path.read_text(encoding="utf-8") if path.exists() else "")
            self.set_text(uri, apply_text_edits(self.text(uri), chosen))
        if self.vscode:
            return t.ApplyWorkspaceEditResult(applied=took_any or not per_uri)
        return t.ApplyWorkspaceEditResult(applied=True)  # Neovim says applied even after "No"

    def _wants(self, e: Any, needs_confirmation: bool) -> bool:
        if self.take == "all":
            return True
        if self.take == "none":
            return False
        annotation = getattr(e, "annotation_id", None)
        if annotation is None:  # Neovim: one yes/no for the whole edit
            return bool(self.take)
        return annotation in self.take


def apply_text_edits(text: str, edits: list[Any]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: t.Position) -> int:
        return starts[min(p.line, len(lines))] + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def make_client() -> LanguageClient:
    client = pytest_lsp.make_test_lsp_client()
    # lsprotocol reads any code action that has a `command` as a bare Command (losing kind and
    # diagnostics); editors tell them apart by whether `command` is a string. Do the same.
    converter = client.protocol._converter
    converter.register_structure_hook(
        Union[t.Command, t.CodeAction],
        lambda obj, _: converter.structure(obj, t.Command if isinstance(obj.get("command"), str) else t.CodeAction))
    client.editor = None  # type: ignore[attr-defined]
    client.notifications = []  # type: ignore[attr-defined]

    @client.feature(t.WORKSPACE_APPLY_EDIT)
    def on_apply_edit(ls: LanguageClient, params: t.ApplyWorkspaceEditParams) -> t.ApplyWorkspaceEditResult:
        return ls.editor.on_apply_edit(params)  # type: ignore[attr-defined]

    @client.feature("fixloop/runFinished")
    def on_run_finished(ls: LanguageClient, params: Any) -> None:
        ls.notifications.append(params)  # type: ignore[attr-defined]

    return client


def as_dict(value: Any) -> Any:
    """Notifications with no registered type arrive as attribute objects; make them plain data."""
    if isinstance(value, (dict, list, str, int, float, bool)) or value is None:
        if isinstance(value, dict):
            return {k: as_dict(v) for k, v in value.items()}
        if isinstance(value, list):
            return [as_dict(v) for v in value]
        return value
    if hasattr(value, "_asdict"):
        return as_dict(value._asdict())
    if hasattr(value, "__dict__"):
        return {k: as_dict(v) for k, v in vars(value).items()}
    return value


class Session:
    def __init__(self, client: LanguageClient, editor: Editor, workspace: Path, tmp: Path, profile: str) -> None:
        self.client, self.editor, self.workspace, self.tmp, self.profile = client, editor, workspace, tmp, profile

    def uri(self, rel: str) -> str:
        return (self.workspace / rel).as_uri()

    async def command(self, name: str, *args: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            t.ExecuteCommandParams(command=name, arguments=list(args)))

    async def run_finished(self, run_id: str, timeout: float = 60) -> dict[str, Any]:
        async def wait() -> dict[str, Any]:
            while True:
                for n in self.client.notifications:  # type: ignore[attr-defined]
                    d = as_dict(n)
                    if d.get("run_id") == run_id:
                        return d
                await asyncio.sleep(0.05)
        return await asyncio.wait_for(wait(), timeout)

    async def states(self, run_id: str) -> dict[str, str]:
        shown = await self.command("fixloop.showRun", {"run_id": run_id})
        return {h["id"]: h["state"] for h in shown["hunks"]}

    async def settled_states(self, run_id: str, timeout: float = 30) -> dict[str, str]:
        """Hunk states once the server has decided every hunk it offered."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            got = await self.states(run_id)
            if "pending" not in got.values() or loop.time() > deadline:
                return got
            await asyncio.sleep(0.05)

    async def until(self, check: Any, timeout: float = 10, what: str = "condition") -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            value = check()
            if value:
                return value
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}")

    async def until_value(self, ask: Any, check: Any, timeout: float = 10, what: str = "condition") -> Any:
        """Ask (a coroutine function) until `check` holds for the answer; the answer."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            value = await ask()
            if check(value):
                return value
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def scratch_dirs(self) -> list[Path]:
        return sorted(self.tmp.glob("fixloop-*"))


def project(tmp_path: Path, name: str = "ws", source: Path = INVENTORY) -> Path:
    dest = tmp_path / name
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".fixloop", "__pycache__", ".pytest_cache"))
    return dest


@contextlib.asynccontextmanager
async def lsp(profile: str, workspace: Path, tmp_path: Path, options: dict[str, Any] | None = None,
              patches: list[dict[str, Any]] | None = None, memory: list[dict[str, Any]] | None = None,
              shutdown: bool = True, env: dict[str, str] | None = None) -> AsyncIterator[Session]:
    scratch_tmp = tmp_path / "server-tmp"
    scratch_tmp.mkdir(exist_ok=True)
    # The active virtualenv is the one the projects' tests run on (pytest without the dev plugins).
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "TMPDIR": str(scratch_tmp),
           "VIRTUAL_ENV": str(Path(PYTHON).parent.parent), **(env or {})}
    env.pop("ANTHROPIC_API_KEY", None)
    if patches is not None:
        (tmp_path / "patches.json").write_text(json.dumps(patches))
        env["FIXLOOP_TEST_PATCHES"] = str(tmp_path / "patches.json")
    if memory is not None:
        (tmp_path / "memory.json").write_text(json.dumps(memory))
        env["FIXLOOP_TEST_MEMORY"] = str(tmp_path / "memory.json")
    client = make_client()
    editor = Editor(client, profile)
    client.editor = editor  # type: ignore[attr-defined]
    await client.start_io(sys.executable, str(LAUNCH), "--stdio", env=env)
    opts = {"settings": {"sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0}}, **(options or {})}
    await client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(profile), root_uri=workspace.as_uri(),
        workspace_folders=[t.WorkspaceFolder(uri=workspace.as_uri(), name="ws")], initialization_options=opts))
    try:
        yield Session(client, editor, workspace, scratch_tmp, profile)
    finally:
        if shutdown and client.error is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 30)
        await client.stop()
